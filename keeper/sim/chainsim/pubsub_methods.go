package chainsim

import (
	"encoding/json"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
)

// pubsubMethods are the methods a pubsub connection serves.
var pubsubMethods = map[string]func(p *pubsubAPI, wc *wsConn, in jsonrpc.Call) (any, *jsonrpc.Error){
	"accountSubscribe":     (*pubsubAPI).accountSubscribe,
	"signatureSubscribe":   (*pubsubAPI).signatureSubscribe,
	"slotSubscribe":        (*pubsubAPI).slotSubscribe,
	"accountUnsubscribe":   (*pubsubAPI).unsubscribe,
	"signatureUnsubscribe": (*pubsubAPI).unsubscribe,
	"slotUnsubscribe":      (*pubsubAPI).unsubscribe,
}

// handle answers one request of a pubsub connection. A subscription
// is registered and answered under the chain's lock, so its id reaches the
// client before any of its notifications.
func (p *pubsubAPI) handle(wc *wsConn, msg []byte) {
	var req jsonrpc.Request
	if err := json.Unmarshal(msg, &req); err != nil {
		wc.reply(nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error"})
		return
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		wc.reply(req.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request"})
		return
	}
	fn, ok := pubsubMethods[req.Method]
	if !ok {
		wc.reply(req.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"})
		return
	}
	params, rerr := jsonrpc.SplitParams(req.Params)
	if rerr != nil {
		wc.reply(req.ID, nil, rerr)
		return
	}
	p.c.lock()
	defer p.c.unlock()
	result, rerr := fn(p, wc, jsonrpc.Call{Params: params})
	wc.reply(req.ID, result, rerr)
}

// accountSubConfig is the config object of accountSubscribe.
type accountSubConfig struct {
	Commitment string     `json:"commitment"`
	Encoding   string     `json:"encoding"`
	DataSlice  *dataSlice `json:"dataSlice"`
}

// accountSubscribe: [pubkey, config] → subscription id. The default
// commitment is finalized and the default encoding binary (a bare base58
// string), as on a validator. The caller holds the chain's lock.
func (p *pubsubAPI) accountSubscribe(wc *wsConn, in jsonrpc.Call) (any, *jsonrpc.Error) {
	var key solana.PublicKey
	var cfg accountSubConfig
	if rerr := in.NeedWithConfig(&key, &cfg); rerr != nil {
		return nil, rerr
	}
	switch cfg.Encoding {
	case "", "binary":
		cfg.Encoding = "binary"
	case "base58", "base64":
	default:
		return nil, jsonrpc.InvalidParams("chainsim's accountSubscribe encodes account data as base64, base58 or binary only, not %q", cfg.Encoding)
	}
	cm, rerr := parseCommitment(cfg.Commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return nil, rerr
	}
	sub := &subscription{conn: wc, kind: subAccount, cm: cm, key: key, encoding: cfg.Encoding, slice: cfg.DataSlice}
	return p.addSub(wc, sub), nil
}

// signatureSubConfig is the config object of signatureSubscribe.
type signatureSubConfig struct {
	Commitment                 string `json:"commitment"`
	EnableReceivedNotification bool   `json:"enableReceivedNotification"`
}

// signatureSubscribe: [signature, config] → subscription id. The default
// commitment is finalized, as on a validator. The caller holds the chain's
// lock.
func (p *pubsubAPI) signatureSubscribe(wc *wsConn, in jsonrpc.Call) (any, *jsonrpc.Error) {
	var sig solana.Signature
	var cfg signatureSubConfig
	if rerr := in.NeedWithConfig(&sig, &cfg); rerr != nil {
		return nil, rerr
	}
	if cfg.EnableReceivedNotification {
		return nil, jsonrpc.InvalidParams("chainsim does not send receivedSignature notifications")
	}
	cm, rerr := parseCommitment(cfg.Commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return nil, rerr
	}
	return p.addSub(wc, &subscription{conn: wc, kind: subSignature, cm: cm, sig: sig}), nil
}

// slotSubscribe: [] → subscription id. The caller holds the chain's lock.
func (p *pubsubAPI) slotSubscribe(wc *wsConn, _ jsonrpc.Call) (any, *jsonrpc.Error) {
	return p.addSub(wc, &subscription{conn: wc, kind: subSlot}), nil
}

// unsubscribe: [subscription id] → true, or -32602 for an id this
// connection does not hold (ended, never given, or another connection's),
// as on a validator. The caller holds the chain's lock.
func (p *pubsubAPI) unsubscribe(wc *wsConn, in jsonrpc.Call) (any, *jsonrpc.Error) {
	var id uint64
	if rerr := in.Need(0, &id); rerr != nil {
		return nil, rerr
	}
	if !wc.subs[id] {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid subscription id."}
	}
	wc.forget(id)
	return p.c.Pubsub.remove(id), nil
}

// addSub registers sub for its connection and returns its id. The caller
// holds the chain's mu.
func (p *pubsubAPI) addSub(wc *wsConn, sub *subscription) uint64 {
	id := p.c.Pubsub.add(sub)
	wc.subs[id] = true
	return id
}
