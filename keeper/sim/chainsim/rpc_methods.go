package chainsim

import (
	"maps"
	"slices"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// methodFunc implements one JSON-RPC method.
type methodFunc func(in jsonrpc.Call) (any, *jsonrpc.Error)

// rpcMethods returns the JSON-RPC methods of c's RPC service.
func rpcMethods(c *Chain) map[string]methodFunc {
	r, tx, st := &readAPI{c: c}, &sendAPI{c: c}, &statusAPI{c: c}
	return map[string]methodFunc{
		"getAccountInfo":                    r.getAccountInfo,
		"getBalance":                        r.getBalance,
		"getBlockHeight":                    r.getBlockHeight,
		"getHealth":                         getHealth,
		"getLatestBlockhash":                r.getLatestBlockhash,
		"getMinimumBalanceForRentExemption": getMinimumBalanceForRentExemption,
		"getMultipleAccounts":               r.getMultipleAccounts,
		"getRecentPrioritizationFees":       st.getRecentPrioritizationFees,
		"getSignatureStatuses":              st.getSignatureStatuses,
		"getSlot":                           r.getSlot,
		"getTransaction":                    st.getTransaction,
		"getVersion":                        getVersion,
		"isBlockhashValid":                  r.isBlockhashValid,
		"sendTransaction":                   tx.sendTransaction,
		"simulateBundle":                    tx.simulateBundle,
		"simulateTransaction":               tx.simulateTransaction,
	}
}

// jitoRoutes returns the paths and methods of c's Jito block engine.
func jitoRoutes(c *Chain) map[string]map[string]methodFunc {
	j, tx := &jitoAPI{c: c}, &sendAPI{c: c}
	return map[string]map[string]methodFunc{
		"/api/v1/bundles": {
			"sendBundle":                j.sendBundle,
			"getBundleStatuses":         j.getBundleStatuses,
			"getInflightBundleStatuses": j.getInflightBundleStatuses,
			"getTipAccounts":            j.getTipAccounts,
		},
		"/api/v1/transactions": {
			"sendTransaction": tx.jitoSendTransaction,
		},
	}
}

// Method names per service, for fault configuration.
var (
	rpcMethodNames  = slices.Sorted(maps.Keys(rpcMethods(nil)))
	jitoMethodNames = slices.Sorted(maps.Keys(mergeRoutes(jitoRoutes(nil))))
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

// listArg reads the list at parameter 0, which must be present when
// required, refusing more than limit entries as a node does.
func listArg[T any](in jsonrpc.Call, required bool, limit int) ([]T, *jsonrpc.Error) {
	var list []T
	read := in.Arg
	if required {
		read = in.Need
	}
	if rerr := read(0, &list); rerr != nil {
		return nil, rerr
	}
	if len(list) > limit {
		return nil, jsonrpc.InvalidParams("Too many inputs provided; max %d", limit)
	}
	return list, nil
}

// commitmentConfig is the config object of simple reads.
type commitmentConfig struct {
	Commitment     string  `json:"commitment"`
	MinContextSlot *uint64 `json:"minContextSlot"`
}

// view returns the block of l a read at a commitment sees (default
// finalized), or -32016 when it is older than minContextSlot. The caller
// holds the chain's lock.
func view(l *Ledger, commitment string, minSlot *uint64) (svm.BlockPos, *jsonrpc.Error) {
	return lagView(l, commitment, minSlot, 0)
}

// lagView is view for a node lag slots behind the cluster: it has reached
// only the last block lag slots before the one the commitment names, and
// that is the slot minContextSlot is held against (agave answers -32016 when
// the bank a read would use is older than minContextSlot).
func lagView(l *Ledger, commitment string, minSlot *uint64, lag uint64) (svm.BlockPos, *jsonrpc.Error) {
	cm, rerr := parseCommitment(commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return svm.BlockPos{}, rerr
	}
	pos := l.viewAt(cm)
	if lag > 0 {
		pos = l.idx.posOfSlot(l.idx.lastProduced(pos.Slot - min(lag, pos.Slot)))
	}
	if minSlot != nil && *minSlot > pos.Slot {
		return pos, &jsonrpc.Error{Code: jsonrpc.CodeMinContextSlot, Message: "Minimum context slot has not been reached", Data: map[string]uint64{"contextSlot": pos.Slot}}
	}
	return pos, nil
}

// getHealth answers "ok".
func getHealth(jsonrpc.Call) (any, *jsonrpc.Error) { return "ok", nil }

// getVersion reports the simulated node version.
func getVersion(jsonrpc.Call) (any, *jsonrpc.Error) {
	return map[string]any{"solana-core": apiVersion + "-chainsim", "feature-set": 0}, nil
}

// getMinimumBalanceForRentExemption returns the rent-exempt minimum of a
// data size: (128 + size) × 3480 × 2.
func getMinimumBalanceForRentExemption(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var size uint64
	if rerr := in.Need(0, &size); rerr != nil {
		return nil, rerr
	}
	if size > svm.MaxAccountSpace {
		return nil, jsonrpc.InvalidParams("data size %d exceeds %d", size, svm.MaxAccountSpace)
	}
	return (128 + size) * 3480 * 2, nil
}
