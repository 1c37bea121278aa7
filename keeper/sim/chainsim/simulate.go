package chainsim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// SimulateOptions configure Chain.Simulate.
type SimulateOptions struct {
	// SigVerify verifies every signature first.
	SigVerify bool
	// ReplaceRecentBlockhash ignores the transaction's blockhash and reports
	// the latest one instead; it conflicts with SigVerify.
	ReplaceRecentBlockhash bool
	// Commitment is the block the simulation runs on: its accounts, its
	// slot and its view of blockhashes, as Agave simulates on the bank of
	// the commitment asked; "" means processed.
	Commitment rpc.CommitmentType
	// Accounts are the accounts whose post-simulation state to return.
	Accounts []solana.PublicKey
}

// SimResult is the outcome of a simulation.
type SimResult struct {
	// Slot is the slot of the block the simulation used.
	Slot uint64
	// Err is why the transaction would fail, nil if it would succeed.
	Err *svm.TxError
	// Logs are the program logs; nil when it failed before execution.
	Logs []string
	// UnitsConsumed is the compute units used.
	UnitsConsumed uint64
	// Fee is the fee the transaction would pay. As on a real node it is
	// already deducted from the fee payer in the returned accounts.
	Fee uint64
	// Accounts are the post-simulation states of SimulateOptions.Accounts,
	// nil where there is no account; nil when it failed before execution.
	Accounts []*svm.Account
	// ReplacementBlockhash is the blockhash used under
	// ReplaceRecentBlockhash.
	ReplacementBlockhash *solana.Hash
	// LastValidBlockHeight is the last height ReplacementBlockhash is valid at.
	LastValidBlockHeight uint64
	// Balances are the lamports and token balances of the transaction's
	// accounts before and after, as a landed transaction's status meta has
	// them; nil when it failed before execution.
	Balances *Balances
}

// Balances are a transaction's account balances before and after it ran
// (fee included after), indexed as its account keys: the static keys, then
// the writable and the read-only addresses loaded from lookup tables.
type Balances struct {
	Pre, Post       []uint64
	PreTok, PostTok []svm.TokenBalance
	LoadedW         []solana.PublicKey
	LoadedR         []solana.PublicKey
}

// Simulate runs a transaction against the current state without changing
// it. The error is non-nil only for a malformed transaction
// (ErrInvalidTransaction), conflicting options, or, under SigVerify, a bad
// signature (ErrSignatureFailure); every other failure is in SimResult.Err.
func (c *Chain) Simulate(raw []byte, opts SimulateOptions) (SimResult, error) {
	if opts.SigVerify && opts.ReplaceRecentBlockhash {
		return SimResult{}, fmt.Errorf("chainsim: simulate: sigVerify may not be used with replaceRecentBlockhash")
	}
	t, err := svm.ParseTx(raw)
	if err != nil {
		return SimResult{}, err
	}
	if opts.SigVerify {
		if err := t.VerifySignatures(); err != nil {
			return SimResult{}, err
		}
	}
	c.lock()
	defer c.unlock()
	return c.rt.simulate(c.State, t, opts), nil
}

// simulate runs t in a sandbox over the bank of opts.Commitment. The caller
// holds the chain's mu.
func (rt *runtime) simulate(st *State, t *svm.Txn, opts SimulateOptions) SimResult {
	view := rt.ledger.viewAt(opts.Commitment)
	out := SimResult{Slot: view.Slot}
	if opts.ReplaceRecentBlockhash {
		h := view.Hash
		out.ReplacementBlockhash, out.LastValidBlockHeight = &h, view.Height+MaxBlockhashAge
	}
	sandbox := svm.NewOverlay(st.past.at(view.Slot, st.accounts))
	res, terr := rt.run(sandbox, t, runOpts{
		pos:        view,
		hashHeight: view.Height,
		simulate:   true,
		skipHash:   opts.ReplaceRecentBlockhash,
	})
	if terr != nil {
		out.Err = terr
		return out
	}
	out.Err, out.Logs, out.UnitsConsumed, out.Fee = res.err, res.logs, res.units, res.fee
	out.Balances = &Balances{Pre: res.pre, Post: res.post, PreTok: res.preTok, PostTok: res.postTok, LoadedW: t.LoadedW, LoadedR: t.LoadedR}
	out.Accounts = make([]*svm.Account, len(opts.Accounts))
	for i, k := range opts.Accounts {
		if a, ok := sandbox.Get(k); ok {
			cp := a.Clone()
			out.Accounts[i] = &cp
		}
	}
	if out.Logs == nil {
		out.Logs = []string{}
	}
	return out
}
