package chainsim

import (
	"maps"
	"slices"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// methodFunc implements one JSON-RPC method.
type methodFunc func(s *Server, in jsonrpc.Call) (any, *jsonrpc.Error)

// rpcMethods are the JSON-RPC methods of the RPC service.
var rpcMethods = map[string]methodFunc{
	"getAccountInfo":                    (*Server).getAccountInfo,
	"getBalance":                        (*Server).getBalance,
	"getBlockHeight":                    (*Server).getBlockHeight,
	"getHealth":                         (*Server).getHealth,
	"getLatestBlockhash":                (*Server).getLatestBlockhash,
	"getMinimumBalanceForRentExemption": (*Server).getMinimumBalanceForRentExemption,
	"getMultipleAccounts":               (*Server).getMultipleAccounts,
	"getRecentPrioritizationFees":       (*Server).getRecentPrioritizationFees,
	"getSignatureStatuses":              (*Server).getSignatureStatuses,
	"getSlot":                           (*Server).getSlot,
	"getTransaction":                    (*Server).getTransaction,
	"getVersion":                        (*Server).getVersion,
	"isBlockhashValid":                  (*Server).isBlockhashValid,
	"sendTransaction":                   (*Server).sendTransaction,
	"simulateBundle":                    (*Server).simulateBundle,
	"simulateTransaction":               (*Server).simulateTransaction,
}

// jitoRoutes are the Jito block engine's paths and methods.
var jitoRoutes = map[string]map[string]methodFunc{
	"/api/v1/bundles": {
		"sendBundle":                (*Server).sendBundle,
		"getBundleStatuses":         (*Server).getBundleStatuses,
		"getInflightBundleStatuses": (*Server).getInflightBundleStatuses,
		"getTipAccounts":            (*Server).getTipAccounts,
	},
	"/api/v1/transactions": {
		"sendTransaction": (*Server).jitoSendTransaction,
	},
}

// Method names per service, for fault configuration.
var (
	rpcMethodNames  = slices.Sorted(maps.Keys(rpcMethods))
	jitoMethodNames = slices.Sorted(maps.Keys(mergeRoutes(jitoRoutes)))
)

// RPCMethods returns the JSON-RPC methods the RPC service implements.
func RPCMethods() []string { return slices.Clone(rpcMethodNames) }

// JitoMethods returns the methods the Jito service implements.
func JitoMethods() []string { return slices.Clone(jitoMethodNames) }

// mergeRoutes returns every method of every route.
func mergeRoutes(routes map[string]map[string]methodFunc) map[string]methodFunc {
	out := map[string]methodFunc{}
	for _, m := range routes {
		maps.Copy(out, m)
	}
	return out
}

// commitmentConfig is the config object of simple reads.
type commitmentConfig struct {
	Commitment     string  `json:"commitment"`
	MinContextSlot *uint64 `json:"minContextSlot"`
}

// view returns the block a read at cfg's commitment sees (default
// finalized), or -32016 when it is older than minContextSlot. The caller
// holds the chain's lock.
func (s *Server) view(commitment string, minSlot *uint64) (svm.BlockPos, *jsonrpc.Error) {
	cm, rerr := parseCommitment(commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return svm.BlockPos{}, rerr
	}
	pos := s.c.posOfHeight(s.c.heightAt(cm))
	if minSlot != nil && *minSlot > pos.Slot {
		return pos, &jsonrpc.Error{Code: jsonrpc.CodeMinContextSlot, Message: "Minimum context slot has not been reached", Data: map[string]uint64{"contextSlot": pos.Slot}}
	}
	return pos, nil
}

// getHealth answers "ok".
func (s *Server) getHealth(jsonrpc.Call) (any, *jsonrpc.Error) { return "ok", nil }

// getVersion reports the simulated node version.
func (s *Server) getVersion(jsonrpc.Call) (any, *jsonrpc.Error) {
	return map[string]any{"solana-core": apiVersion + "-chainsim", "feature-set": 0}, nil
}

// getMinimumBalanceForRentExemption returns the rent-exempt minimum of a
// data size: (128 + size) × 3480 × 2.
func (s *Server) getMinimumBalanceForRentExemption(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var size uint64
	if rerr := in.Need(0, &size); rerr != nil {
		return nil, rerr
	}
	if size > svm.MaxAccountSpace {
		return nil, jsonrpc.InvalidParams("data size %d exceeds %d", size, svm.MaxAccountSpace)
	}
	return (128 + size) * 3480 * 2, nil
}
