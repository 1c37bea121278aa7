package chainsim

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/mr-tron/base58"
)

// Limits of the status and fee methods.
const (
	maxStatusSignatures = 256
	maxFeeAccounts      = 128
)

// statusAPI serves the RPC service's questions about landed transactions:
// statuses, fees and the transactions themselves.
type statusAPI struct {
	c *Chain
}

// getSignatureStatuses: [[signature], {searchTransactionHistory}] →
// [status or null].
func (a *statusAPI) getSignatureStatuses(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var cfg struct {
		SearchTransactionHistory bool `json:"searchTransactionHistory"`
	}
	sigs, rerr := listArg[solana.Signature](in, true, maxStatusSignatures)
	if rerr != nil {
		return nil, rerr
	}
	if rerr := in.Arg(1, &cfg); rerr != nil {
		return nil, rerr
	}
	a.c.lock()
	defer a.c.unlock()
	l := a.c.Ledger
	view := l.tip.Slot - min(in.Lag, l.tip.Slot) // a lagging node has seen up to here
	out := make([]*wireStatus, len(sigs))
	for i, sig := range sigs {
		if st, ok := l.status(sig, cfg.SearchTransactionHistory); ok && st.Slot <= view {
			out[i] = encodeStatus(st)
		}
	}
	return contextValue(view, out), nil
}

// getRecentPrioritizationFees: [[pubkey]] → [{slot, prioritizationFee}].
func (a *statusAPI) getRecentPrioritizationFees(in jsonrpc.Call) (any, *jsonrpc.Error) {
	keys, rerr := listArg[solana.PublicKey](in, false, maxFeeAccounts)
	if rerr != nil {
		return nil, rerr
	}
	fees := a.c.Ledger.RecentPrioritizationFees(keys)
	out := make([]map[string]uint64, len(fees))
	for i, f := range fees {
		out[i] = map[string]uint64{"slot": f.Slot, "prioritizationFee": f.Fee}
	}
	return out, nil
}

// transactionConfig is getTransaction's config object.
type transactionConfig struct {
	Encoding                       string  `json:"encoding"`
	Commitment                     string  `json:"commitment"`
	MaxSupportedTransactionVersion *uint64 `json:"maxSupportedTransactionVersion"`
}

// getTransaction: [signature, config] → the landed transaction, or null if
// unknown or not yet at the commitment (default finalized). Encodings:
// json (default), base64, base58.
func (a *statusAPI) getTransaction(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var (
		sig solana.Signature
		cfg transactionConfig
	)
	if rerr := in.NeedWithConfig(&sig, &cfg); rerr != nil {
		return nil, rerr
	}
	cm, rerr := parseCommitment(cfg.Commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return nil, rerr
	}
	if cm == rpc.CommitmentProcessed {
		return nil, jsonrpc.InvalidParams("Method does not support commitment below `confirmed`")
	}
	a.c.lock()
	defer a.c.unlock()
	l := a.c.Ledger
	rec, ok := l.txs[sig]
	if !ok || !meetsCommitment(l.tip.Height, rec.BlockHeight, cm) {
		return nil, nil
	}
	if rec.version == 0 && cfg.MaxSupportedTransactionVersion == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeUnsupportedTxVers, Message: "Transaction version (0) is not supported by the requesting client. " +
			"Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": 0"}
	}
	return encodeLanded(rec, cfg.Encoding)
}

// encodeLanded returns the wire form of a landed transaction.
func encodeLanded(rec *record, enc string) (any, *jsonrpc.Error) {
	var tx any
	switch enc {
	case "", "json":
		tx = rec.Transaction
	case "base64":
		tx = [2]string{base64.StdEncoding.EncodeToString(rec.Raw), "base64"}
	case "base58":
		tx = [2]string{base58.Encode(rec.Raw), "base58"}
	default:
		return nil, jsonrpc.InvalidParams("chainsim encodes transactions as json, base64 or base58 only, not %q", enc)
	}
	var version any = "legacy"
	if rec.version == 0 {
		version = 0
	}
	return map[string]any{
		"slot":        rec.Slot,
		"blockTime":   rec.BlockTime.Unix(),
		"transaction": tx,
		"meta":        encodeMeta(rec),
		"version":     version,
	}, nil
}

// encodeMeta returns a landed transaction's status meta.
func encodeMeta(rec *record) map[string]any {
	res := rec.res
	return map[string]any{
		"err":                  svm.WireErr(res.err),
		"status":               okOrErr(res.err),
		"fee":                  res.fee,
		"preBalances":          res.pre,
		"postBalances":         res.post,
		"innerInstructions":    []any{},
		"preTokenBalances":     encodeTokenBalances(res.preTok),
		"postTokenBalances":    encodeTokenBalances(res.postTok),
		"logMessages":          nonNilLogs(res.logs),
		"rewards":              []any{},
		"loadedAddresses":      map[string][]string{"writable": keyStrings(rec.loadedW), "readonly": keyStrings(rec.loadedR)},
		"computeUnitsConsumed": res.units,
	}
}

// encodeTokenBalances returns token balances in the RPC's form.
func encodeTokenBalances(list []svm.TokenBalance) []map[string]any {
	out := make([]map[string]any, len(list))
	for i, b := range list {
		out[i] = map[string]any{
			"accountIndex":  b.Index,
			"mint":          b.Mint.String(),
			"owner":         b.Owner.String(),
			"programId":     solana.TokenProgramID.String(),
			"uiTokenAmount": uiAmount(b.Amount, b.Decimals),
		}
	}
	return out
}

// uiAmount returns a token amount's UiTokenAmount form.
func uiAmount(amount uint64, decimals uint8) map[string]any {
	s := strconv.FormatUint(amount, 10)
	ui := s
	if decimals > 0 {
		for len(ui) <= int(decimals) {
			ui = "0" + ui
		}
		ui = ui[:len(ui)-int(decimals)] + "." + ui[len(ui)-int(decimals):]
		for ui[len(ui)-1] == '0' {
			ui = ui[:len(ui)-1]
		}
		if ui[len(ui)-1] == '.' {
			ui = ui[:len(ui)-1]
		}
	}
	f, _ := strconv.ParseFloat(ui, 64)
	return map[string]any{"amount": s, "decimals": decimals, "uiAmount": json.Number(strconv.FormatFloat(f, 'f', -1, 64)), "uiAmountString": ui}
}
