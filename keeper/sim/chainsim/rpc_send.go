package chainsim

import (
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// sendAPI serves the methods that send or simulate transactions.
type sendAPI struct {
	c *Chain
}

// sendConfig is sendTransaction's config object.
type sendConfig struct {
	Encoding            string  `json:"encoding"`
	SkipPreflight       bool    `json:"skipPreflight"`
	PreflightCommitment string  `json:"preflightCommitment"`
	MaxRetries          *uint64 `json:"maxRetries"`
	MinContextSlot      *uint64 `json:"minContextSlot"`
}

// sendTransaction: [tx, config] → signature. With preflight (the default)
// the signatures are verified (-32003) and the transaction simulated at the
// preflight commitment (default finalized); a failure is -32002 with
// {err, logs}. Without preflight, a transaction that cannot land is
// accepted and silently dropped, as a leader would. maxRetries is accepted
// and has no effect: a transaction lands at once or never.
func (a *sendAPI) sendTransaction(in jsonrpc.Call) (any, *jsonrpc.Error) {
	t, cfg, rerr := sendArgs(in)
	if rerr != nil {
		return nil, rerr
	}
	sigErr := t.VerifySignatures()
	if !cfg.SkipPreflight && sigErr != nil {
		return nil, invalidTx(sigErr)
	}
	a.c.lock()
	defer a.c.unlock()
	if rerr := a.preflight(t, cfg); rerr != nil {
		return nil, rerr
	}
	a.landOrDrop(t, sigErr, in.NeverLand)
	return t.ID().String(), nil
}

// sendArgs reads the parameters of a sendTransaction: the encoded
// transaction, parsed, and its config.
func sendArgs(in jsonrpc.Call) (*svm.Txn, sendConfig, *jsonrpc.Error) {
	var (
		encoded string
		cfg     sendConfig
	)
	if rerr := in.NeedWithConfig(&encoded, &cfg); rerr != nil {
		return nil, cfg, rerr
	}
	t, rerr := parseTxString(encoded, cfg.Encoding)
	return t, cfg, rerr
}

// preflight simulates t unless skipped. The caller holds the chain's lock.
func (a *sendAPI) preflight(t *svm.Txn, cfg sendConfig) *jsonrpc.Error {
	if _, rerr := view(a.c.Ledger, cfg.PreflightCommitment, cfg.MinContextSlot); rerr != nil || cfg.SkipPreflight {
		return rerr
	}
	cm, _ := parseCommitment(cfg.PreflightCommitment, rpc.CommitmentFinalized)
	sim := a.c.rt.simulate(a.c.State, t, SimulateOptions{Commitment: cm})
	if sim.Err == nil {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodePreflightFailure, Message: preflightMessage(sim.Err), Data: simFailureData(sim)}
}

// landOrDrop submits t unless it failed signature verification or a
// never-land fault applies; drops are logged only. The caller holds the
// chain's lock.
func (a *sendAPI) landOrDrop(t *svm.Txn, sigErr error, neverLand bool) {
	switch {
	case neverLand:
		a.c.log.Debug("transaction dropped by fault", "signature", t.ID())
	case a.c.drops.take(t.ID(), &t.Msg):
		a.c.log.Info("transaction dropped as scripted", "signature", t.ID())
	case sigErr != nil:
		a.c.log.Debug("transaction dropped", "signature", t.ID(), "reason", "SignatureFailure")
	default:
		_ = a.c.leader.submit(t) // a dropped transaction is logged by landTx
	}
}

// jitoSendTransaction is the block engine's sendTransaction: always
// without preflight.
func (a *sendAPI) jitoSendTransaction(in jsonrpc.Call) (any, *jsonrpc.Error) {
	t, _, rerr := sendArgs(in)
	if rerr != nil {
		return nil, rerr
	}
	a.c.lock()
	defer a.c.unlock()
	a.landOrDrop(t, t.VerifySignatures(), in.NeverLand)
	return t.ID().String(), nil
}

// simulateConfig is simulateTransaction's config object.
type simulateConfig struct {
	SigVerify              bool    `json:"sigVerify"`
	ReplaceRecentBlockhash bool    `json:"replaceRecentBlockhash"`
	Commitment             string  `json:"commitment"`
	Encoding               string  `json:"encoding"`
	MinContextSlot         *uint64 `json:"minContextSlot"`
	InnerInstructions      bool    `json:"innerInstructions"`
	Accounts               *struct {
		Encoding  string             `json:"encoding"`
		Addresses []solana.PublicKey `json:"addresses"`
	} `json:"accounts"`
}

// simulateTransaction: [tx, config] → {err, logs, accounts, unitsConsumed}.
func (a *sendAPI) simulateTransaction(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var (
		encoded string
		cfg     simulateConfig
	)
	if rerr := in.NeedWithConfig(&encoded, &cfg); rerr != nil {
		return nil, rerr
	}
	opts, rerr := simulateOptions(cfg)
	if rerr != nil {
		return nil, rerr
	}
	t, rerr := parseTxString(encoded, cfg.Encoding)
	if rerr != nil {
		return nil, rerr
	}
	if opts.SigVerify {
		if err := t.VerifySignatures(); err != nil {
			return nil, invalidTx(err)
		}
	}
	// As agave's simulate_transaction: no more post-state accounts than the message has account keys.
	if n := t.AccountKeyCount(); len(opts.Accounts) > n {
		return nil, jsonrpc.InvalidParams("Too many accounts provided; max %d", n)
	}
	a.c.lock()
	defer a.c.unlock()
	if _, rerr := view(a.c.Ledger, cfg.Commitment, cfg.MinContextSlot); rerr != nil {
		return nil, rerr
	}
	return encodeSimulation(a.c.rt.simulate(a.c.State, t, opts), opts.Accounts != nil, !a.c.noBals)
}

// simulateOptions checks a simulate config and converts it.
func simulateOptions(cfg simulateConfig) (SimulateOptions, *jsonrpc.Error) {
	if cfg.SigVerify && cfg.ReplaceRecentBlockhash {
		return SimulateOptions{}, jsonrpc.InvalidParams("sigVerify may not be used with replaceRecentBlockhash")
	}
	cm, rerr := parseCommitment(cfg.Commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return SimulateOptions{}, rerr
	}
	opts := SimulateOptions{SigVerify: cfg.SigVerify, ReplaceRecentBlockhash: cfg.ReplaceRecentBlockhash, Commitment: cm}
	if cfg.Accounts != nil {
		if enc := cfg.Accounts.Encoding; enc != "" && enc != "base64" {
			return opts, jsonrpc.InvalidParams("chainsim returns simulated accounts as base64 only, not %q", enc)
		}
		opts.Accounts = append([]solana.PublicKey{}, cfg.Accounts.Addresses...)
	}
	return opts, nil
}

// encodeSimulation returns the wire form of a simulation. With balances, as
// Agave's current simulateTransaction, it has the fee, the accounts' balances
// before and after, and the addresses loaded from lookup tables (null
// where the transaction did not run).
func encodeSimulation(r SimResult, withAccounts, balances bool) (any, *jsonrpc.Error) {
	v := simFailureData(r)
	if balances {
		addBalances(v, r)
	}
	if r.ReplacementBlockhash != nil {
		v["replacementBlockhash"] = map[string]any{"blockhash": r.ReplacementBlockhash.String(), "lastValidBlockHeight": r.LastValidBlockHeight}
	}
	if withAccounts && r.Accounts != nil {
		accts := make([]*wireAccount, len(r.Accounts))
		for i, a := range r.Accounts {
			accts[i], _ = encodeAccount(a, "base64", nil)
		}
		v["accounts"] = accts
	}
	return contextValue(r.Slot, v), nil
}

// DropOnce makes the network drop the next transaction sent through sendTransaction whose message
// match accepts, as a leader may drop a transaction: the sender gets its signature, and that
// transaction never lands however often it is sent again, until its blockhash expires. Several drops
// wait in the order they were added; each is used up by the first transaction it matches. match sees
// the message with its static account keys only and must not keep it.
func (c *Chain) DropOnce(match func(*solana.Message) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drops.waiting = append(c.drops.waiting, match)
}

// drops are the scripted drops of DropOnce: those waiting for a match and
// the transactions dropped so far. They are guarded by the chain's mu.
type drops struct {
	waiting []func(*solana.Message) bool
	dropped map[solana.Signature]bool
}

// take reports whether the transaction sig with message msg is to be dropped: it was dropped
// before, or a waiting drop matches it now (and is used up).
func (d *drops) take(sig solana.Signature, msg *solana.Message) bool {
	if d.dropped[sig] {
		return true
	}
	i := slices.IndexFunc(d.waiting, func(match func(*solana.Message) bool) bool { return match(msg) })
	if i < 0 {
		return false
	}
	d.waiting = slices.Delete(d.waiting, i, i+1)
	if d.dropped == nil {
		d.dropped = map[solana.Signature]bool{}
	}
	d.dropped[sig] = true
	return true
}

// addBalances adds the members of a simulation result that Agave added
// with the balances: fee, preBalances, postBalances, preTokenBalances,
// postTokenBalances and loadedAddresses.
func addBalances(v map[string]any, r SimResult) {
	b := r.Balances
	if b == nil {
		for _, k := range []string{"fee", "preBalances", "postBalances", "preTokenBalances", "postTokenBalances", "loadedAddresses"} {
			v[k] = nil
		}
		return
	}
	v["fee"] = r.Fee
	v["preBalances"], v["postBalances"] = b.Pre, b.Post
	v["preTokenBalances"], v["postTokenBalances"] = encodeTokenBalances(b.PreTok), encodeTokenBalances(b.PostTok)
	v["loadedAddresses"] = map[string][]string{"writable": keyStrings(b.LoadedW), "readonly": keyStrings(b.LoadedR)}
}
