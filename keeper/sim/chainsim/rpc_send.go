package chainsim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

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
func (s *Server) sendTransaction(in call) (any, *rpcError) {
	t, cfg, rerr := sendArgs(in)
	if rerr != nil {
		return nil, rerr
	}
	sigErr := t.VerifySignatures()
	if !cfg.SkipPreflight && sigErr != nil {
		return nil, invalidTx(sigErr)
	}
	s.c.lock()
	defer s.c.unlock()
	if rerr := s.preflight(t, cfg); rerr != nil {
		return nil, rerr
	}
	s.landOrDrop(t, sigErr, in.neverLand)
	return t.ID().String(), nil
}

// sendArgs reads the parameters of a sendTransaction: the encoded
// transaction, parsed, and its config.
func sendArgs(in call) (*svm.Txn, sendConfig, *rpcError) {
	var (
		encoded string
		cfg     sendConfig
	)
	if rerr := in.needWithConfig(&encoded, &cfg); rerr != nil {
		return nil, cfg, rerr
	}
	t, rerr := parseTxString(encoded, cfg.Encoding)
	return t, cfg, rerr
}

// preflight simulates t unless skipped. The caller holds the chain's lock.
func (s *Server) preflight(t *svm.Txn, cfg sendConfig) *rpcError {
	if _, rerr := s.view(cfg.PreflightCommitment, cfg.MinContextSlot); rerr != nil || cfg.SkipPreflight {
		return rerr
	}
	cm, _ := parseCommitment(cfg.PreflightCommitment, rpc.CommitmentFinalized)
	sim := s.c.simulateLocked(t, SimulateOptions{Commitment: cm})
	if sim.Err == nil {
		return nil
	}
	return &rpcError{Code: codePreflightFailure, Message: preflightMessage(sim.Err), Data: simFailureData(sim)}
}

// landOrDrop submits t unless it failed signature verification or a
// never-land fault applies; drops are logged only. The caller holds the
// chain's lock.
func (s *Server) landOrDrop(t *svm.Txn, sigErr error, neverLand bool) {
	switch {
	case neverLand:
		s.c.log.Debug("transaction dropped by fault", "signature", t.ID())
	case s.c.takeDropLocked(t.ID(), &t.Msg):
		s.c.log.Info("transaction dropped as scripted", "signature", t.ID())
	case sigErr != nil:
		s.c.log.Debug("transaction dropped", "signature", t.ID(), "reason", "SignatureFailure")
	default:
		_ = s.c.submitLocked(t) // a dropped transaction is logged by landTxLocked
	}
}

// jitoSendTransaction is the block engine's sendTransaction: always
// without preflight.
func (s *Server) jitoSendTransaction(in call) (any, *rpcError) {
	t, _, rerr := sendArgs(in)
	if rerr != nil {
		return nil, rerr
	}
	s.c.lock()
	defer s.c.unlock()
	s.landOrDrop(t, t.VerifySignatures(), in.neverLand)
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
func (s *Server) simulateTransaction(in call) (any, *rpcError) {
	var (
		encoded string
		cfg     simulateConfig
	)
	if rerr := in.needWithConfig(&encoded, &cfg); rerr != nil {
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
		return nil, invalidParams("Too many accounts provided; max %d", n)
	}
	s.c.lock()
	defer s.c.unlock()
	if _, rerr := s.view(cfg.Commitment, cfg.MinContextSlot); rerr != nil {
		return nil, rerr
	}
	return encodeSimulation(s.c.simulateLocked(t, opts), opts.Accounts != nil)
}

// simulateOptions checks a simulate config and converts it.
func simulateOptions(cfg simulateConfig) (SimulateOptions, *rpcError) {
	if cfg.SigVerify && cfg.ReplaceRecentBlockhash {
		return SimulateOptions{}, invalidParams("sigVerify may not be used with replaceRecentBlockhash")
	}
	cm, rerr := parseCommitment(cfg.Commitment, rpc.CommitmentFinalized)
	if rerr != nil {
		return SimulateOptions{}, rerr
	}
	opts := SimulateOptions{SigVerify: cfg.SigVerify, ReplaceRecentBlockhash: cfg.ReplaceRecentBlockhash, Commitment: cm}
	if cfg.Accounts != nil {
		if enc := cfg.Accounts.Encoding; enc != "" && enc != "base64" {
			return opts, invalidParams("chainsim returns simulated accounts as base64 only, not %q", enc)
		}
		opts.Accounts = append([]solana.PublicKey{}, cfg.Accounts.Addresses...)
	}
	return opts, nil
}

// encodeSimulation returns the wire form of a simulation.
func encodeSimulation(r SimResult, withAccounts bool) (any, *rpcError) {
	v := simFailureData(r)
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
