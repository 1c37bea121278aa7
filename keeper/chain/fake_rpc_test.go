package chain

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gagliardetto/solana-go"
)

// ServeHTTP answers JSON-RPC requests for the node and the block engine.
func (fc *fakeChain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params []any  `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	fc.mu.Lock()
	fc.calls = append(fc.calls, fakeCall{at: time.Now(), host: r.Host, path: r.URL.Path, method: req.Method, params: req.Params, auth: r.Header.Get("x-jito-auth")})
	if fc.hook != nil {
		fc.hook(req.Method)
	}
	result, rpcErr := fc.dispatchLocked(req.Method, req.Params)
	fc.mu.Unlock()
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// dispatchLocked runs one method.
func (fc *fakeChain) dispatchLocked(method string, p []any) (any, *fakeRPCError) {
	ctx := map[string]any{"slot": fc.height()}
	switch method {
	case "sendTransaction":
		return fc.sendLocked(p)
	case "getSignatureStatuses":
		return map[string]any{"context": ctx, "value": fc.statusesLocked(p)}, nil
	case "isBlockhashValid":
		return map[string]any{"context": ctx, "value": fc.hashValidLocked(solana.MustHashFromBase58(p[0].(string)))}, nil
	case "getLatestBlockhash":
		h := fc.issueLocked()
		return map[string]any{"context": ctx, "value": map[string]any{"blockhash": h.String(), "lastValidBlockHeight": fc.height() + fc.lifetime}}, nil
	case "getBalance":
		return map[string]any{"context": ctx, "value": lamportsOf(fc.accounts[solana.MustPublicKeyFromBase58(p[0].(string))])}, nil
	case "getMultipleAccounts":
		return map[string]any{"context": ctx, "value": fc.accountsJSON(fc.accounts, p[0].([]any))}, nil
	case "simulateTransaction":
		return fc.simulateLocked(p), nil
	case "getTipAccounts":
		if fc.tipAnswer != nil {
			return fc.tipAnswer, nil
		}
		out := make([]string, len(fc.tipAccounts))
		for i, k := range fc.tipAccounts {
			out[i] = k.String()
		}
		return out, nil
	case "sendBundle":
		return fc.sendBundleLocked(p)
	case "getInflightBundleStatuses":
		return map[string]any{"context": ctx, "value": fc.inflightLocked(p[0].([]any))}, nil
	case "getBundleStatuses":
		return map[string]any{"context": ctx, "value": fc.landedBundlesLocked(p[0].([]any))}, nil
	}
	return nil, &fakeRPCError{Code: -32601, Message: "Method not found"}
}

// decodeParamTx decodes a base64 wire transaction parameter.
func decodeParamTx(v any) *solana.Transaction {
	raw, err := base64.StdEncoding.DecodeString(v.(string))
	if err != nil {
		panic(fmt.Sprintf("fake: bad base64 transaction: %v", err))
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		panic(fmt.Sprintf("fake: bad transaction: %v", err))
	}
	return tx
}

// sendLocked models sendTransaction: scripted errors first, then drops,
// then inclusion.
func (fc *fakeChain) sendLocked(p []any) (any, *fakeRPCError) {
	tx := decodeParamTx(p[0])
	sig := tx.Signatures[0]
	fc.sends[sig]++
	if q := fc.sendReply[sig]; len(q) > 0 {
		fc.sendReply[sig] = q[1:]
		if q[0] != nil {
			return nil, q[0]
		}
	}
	if fc.landed[sig] != nil {
		return nil, &fakeRPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed", Data: map[string]any{"err": "AlreadyProcessed", "logs": []string{}}}
	}
	if fc.dropSends[sig] > 0 {
		fc.dropSends[sig]--
		return sig.String(), nil
	}
	fc.acceptLocked(tx)
	return sig.String(), nil
}

// statusesLocked answers getSignatureStatuses.
func (fc *fakeChain) statusesLocked(p []any) []any {
	sigs := p[0].([]any)
	out := make([]any, len(sigs))
	for i, s := range sigs {
		l, conf := fc.statusLocked(solana.MustSignatureFromBase58(s.(string)))
		if l == nil {
			continue
		}
		var confirmations any = uint64(1)
		if conf == "finalized" {
			confirmations = nil
		}
		status := map[string]any{"Ok": nil}
		if l.err != nil {
			status = map[string]any{"Err": l.err}
		}
		out[i] = map[string]any{"slot": l.slot, "confirmations": confirmations, "err": l.err, "confirmationStatus": conf, "status": status}
	}
	return out
}

// accountsJSON renders accounts in base64 encoding (nil: missing).
func (fc *fakeChain) accountsJSON(from map[solana.PublicKey]*Account, keys []any) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		a := from[solana.MustPublicKeyFromBase58(k.(string))]
		if a == nil {
			continue
		}
		out[i] = map[string]any{
			"lamports": a.Lamports, "owner": a.Owner.String(), "executable": a.Executable,
			"data": []string{base64.StdEncoding.EncodeToString(a.Data), "base64"}, "rentEpoch": 0, "space": len(a.Data),
		}
	}
	return out
}

// simulateLocked answers simulateTransaction with the configured post-state.
func (fc *fakeChain) simulateLocked(p []any) any {
	opts := p[1].(map[string]any)
	var addrs []any
	if a, ok := opts["accounts"].(map[string]any); ok {
		addrs = a["addresses"].([]any)
	}
	value := map[string]any{"err": fc.simErr, "logs": fc.simLogs, "unitsConsumed": 4321}
	if fc.simErr == nil {
		value["accounts"] = fc.accountsJSON(fc.post, addrs)
	}
	if fc.simBalances {
		fc.addBalancesLocked(value, decodeParamTx(p[0]))
	}
	return map[string]any{"context": map[string]any{"slot": fc.height()}, "value": value}
}

// sendBundleLocked models sendBundle.
func (fc *fakeChain) sendBundleLocked(p []any) (any, *fakeRPCError) {
	if enc := p[1].(map[string]any)["encoding"]; enc != "base64" {
		return nil, &fakeRPCError{Code: -32602, Message: fmt.Sprintf("unsupported encoding %v", enc)}
	}
	raws := p[0].([]any)
	if len(raws) == 0 || len(raws) > MaxBundleTxs {
		return nil, &fakeRPCError{Code: -32602, Message: "bundle size"}
	}
	txs := make([]*solana.Transaction, len(raws))
	for i, r := range raws {
		txs[i] = decodeParamTx(r)
	}
	return fc.bundleLocked(txs).id, nil
}

// findBundleLocked returns the latest bundle with id.
func (fc *fakeChain) findBundleLocked(id string) *fakeBundle {
	for i := len(fc.bundles) - 1; i >= 0; i-- {
		if fc.bundles[i].id == id {
			return fc.bundles[i]
		}
	}
	return nil
}

// inflightLocked answers getInflightBundleStatuses.
func (fc *fakeChain) inflightLocked(ids []any) []any {
	out := make([]any, 0, len(ids))
	for _, v := range ids {
		id := v.(string)
		b := fc.findBundleLocked(id)
		st := map[string]any{"bundle_id": id, "status": bundleInvalid, "landed_slot": nil}
		switch {
		case b == nil:
		case b.status == bundleLanded && b.slot <= fc.height():
			st["status"], st["landed_slot"] = bundleLanded, b.slot
		case b.status == bundleLanded:
			st["status"] = bundlePending
		default:
			st["status"] = b.status
		}
		out = append(out, st)
	}
	return out
}

// landedBundlesLocked answers getBundleStatuses.
func (fc *fakeChain) landedBundlesLocked(ids []any) []any {
	out := make([]any, len(ids))
	for i, v := range ids {
		b := fc.findBundleLocked(v.(string))
		if b == nil || b.status != bundleLanded || b.slot > fc.height() {
			continue
		}
		sigs := make([]string, len(b.sigs))
		for j, s := range b.sigs {
			sigs[j] = s.String()
		}
		out[i] = map[string]any{"bundle_id": b.id, "transactions": sigs, "slot": b.slot, "confirmation_status": "confirmed", "err": map[string]any{"Ok": nil}}
	}
	return out
}

// addBalancesLocked adds to a simulation result the balances of tx's
// accounts (static keys, then the lookup tables' writable and read-only
// entries) before (accounts) and after (post), and the loaded addresses.
func (fc *fakeChain) addBalancesLocked(value map[string]any, tx *solana.Transaction) {
	var loadedW, loadedR []solana.PublicKey
	for _, l := range tx.Message.AddressTableLookups {
		addrs := fc.accounts[l.AccountKey].Data[lookupTableHeaderLen:]
		at := func(i uint8) solana.PublicKey { return solana.PublicKeyFromBytes(addrs[32*int(i) : 32*int(i)+32]) }
		for _, i := range l.WritableIndexes {
			loadedW = append(loadedW, at(i))
		}
		for _, i := range l.ReadonlyIndexes {
			loadedR = append(loadedR, at(i))
		}
	}
	keys := slices.Concat(tx.Message.AccountKeys, loadedW, loadedR)
	value["preBalances"], value["preTokenBalances"] = fakeBalances(fc.accounts, keys)
	value["postBalances"], value["postTokenBalances"] = fakeBalances(fc.post, keys)
	value["loadedAddresses"] = map[string]any{"writable": loadedW, "readonly": loadedR}
}

// fakeBalances returns the lamports of keys in state and the token
// balances of those that are token accounts.
func fakeBalances(state map[solana.PublicKey]*Account, keys []solana.PublicKey) ([]uint64, []map[string]any) {
	lamports, tokens := make([]uint64, len(keys)), []map[string]any{}
	for i, k := range keys {
		a := state[k]
		lamports[i] = lamportsOf(a)
		if ta, ok := decodeTokenAccount(a); ok {
			tokens = append(tokens, map[string]any{"accountIndex": i, "mint": ta.Mint.String(), "owner": ta.Owner.String(),
				"programId": a.Owner.String(), "uiTokenAmount": map[string]any{"amount": strconv.FormatUint(ta.Amount, 10)}})
		}
	}
	return lamports, tokens
}
