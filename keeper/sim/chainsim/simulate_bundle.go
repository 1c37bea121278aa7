package chainsim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// MaxSimulateBundleTransactions is the most transactions one simulateBundle
// call may hold (jito-solana rpc.rs: more than 20 is refused).
const MaxSimulateBundleTransactions = 20

// BundleSimOptions configure Chain.SimulateBundle, as Jito-Solana's
// simulateBundle config does.
type BundleSimOptions struct {
	// SkipSigVerify skips signature verification.
	SkipSigVerify bool
	// ReplaceRecentBlockhash ignores the transactions' blockhashes; it
	// requires SkipSigVerify.
	ReplaceRecentBlockhash bool
	// Commitment is the bank the simulation starts from; "" means
	// confirmed, the simulateBundle default.
	Commitment rpc.CommitmentType
	// Pre and Post are, per transaction, the accounts whose state to return
	// before and after it ran; nil entries return nothing. Each is either
	// empty or as long as the bundle.
	Pre, Post [][]solana.PublicKey
}

// BundleTxResult is one transaction's part of a bundle simulation.
type BundleTxResult struct {
	// Err is why it failed; nil when it succeeded.
	Err *svm.TxError
	// Logs are its program logs.
	Logs []string
	// UnitsConsumed is the compute units it used.
	UnitsConsumed uint64
	// Fee is what it paid, already deducted in Post.
	Fee uint64
	// Pre and Post are the requested accounts' states before and after it,
	// nil where there is no account.
	Pre, Post []*svm.Account
}

// BundleSimResult is the outcome of a bundle simulation.
type BundleSimResult struct {
	// Slot is the slot of the bank the simulation started from.
	Slot uint64
	// Failed is the index of the first failing transaction, -1 when all
	// succeeded.
	Failed int
	// Results hold one entry per transaction that ran, in order: the
	// simulation stops after the first failure, so there may be fewer than
	// transactions.
	Results []BundleTxResult
}

// SimulateBundle runs transactions in order on shared state without
// changing the chain, as Jito-Solana's simulateBundle does: each one sees
// what its predecessors wrote (fees included), and the run stops at the
// first failure. It does not check tips or the block engine's 5-transaction
// limit. The error is non-nil only for a malformed request.
func (c *Chain) SimulateBundle(raws [][]byte, opts BundleSimOptions) (BundleSimResult, error) {
	txs, err := parseSimBundle(raws, opts)
	if err != nil {
		return BundleSimResult{}, err
	}
	c.lock()
	defer c.unlock()
	return c.rt.simulateBundle(c.State, txs, opts), nil
}

// parseSimBundle checks a bundle simulation request and parses its
// transactions.
func parseSimBundle(raws [][]byte, opts BundleSimOptions) ([]*svm.Txn, error) {
	n := len(raws)
	switch {
	case n == 0 || n > MaxSimulateBundleTransactions:
		return nil, fmt.Errorf("chainsim: simulate bundle: %d transactions, want 1 to %d", n, MaxSimulateBundleTransactions)
	case len(opts.Pre) != 0 && len(opts.Pre) != n, len(opts.Post) != 0 && len(opts.Post) != n:
		return nil, fmt.Errorf("chainsim: simulate bundle: accounts configs must have one entry per transaction (%d)", n)
	case opts.ReplaceRecentBlockhash && !opts.SkipSigVerify:
		return nil, fmt.Errorf("chainsim: simulate bundle: replaceRecentBlockhash requires skipSigVerify")
	}
	txs := make([]*svm.Txn, n)
	seen := map[[32]byte]bool{} // by message hash, as Jito-Solana: unsigned copies are told apart by their messages
	for i, raw := range raws {
		t, err := svm.ParseTx(raw)
		if err != nil {
			return nil, fmt.Errorf("chainsim: simulate bundle: transaction %d: %w", i, err)
		}
		if !opts.SkipSigVerify {
			if err := t.VerifySignatures(); err != nil {
				return nil, fmt.Errorf("chainsim: simulate bundle: transaction %d: %w", i, err)
			}
		}
		if seen[svm.MessageHash(t)] {
			return nil, fmt.Errorf("chainsim: simulate bundle: transaction %d is a duplicate", i)
		}
		seen[svm.MessageHash(t)] = true
		txs[i] = t
	}
	return txs, nil
}

// simulateBundle runs txs in one sandbox over the bank of opts.Commitment.
// The caller holds the chain's mu.
func (rt *runtime) simulateBundle(st *State, txs []*svm.Txn, opts BundleSimOptions) BundleSimResult {
	cm := opts.Commitment
	if cm == "" {
		cm = rpc.CommitmentConfirmed
	}
	view := rt.ledger.viewAt(cm)
	out := BundleSimResult{Slot: view.Slot, Failed: -1}
	sandbox := svm.NewOverlay(st.past.at(view.Slot, st.accounts))
	for i, t := range txs {
		r := BundleTxResult{Pre: snapshotAccounts(sandbox, entry(opts.Pre, i))}
		res, terr := rt.run(sandbox, t, runOpts{pos: view, hashHeight: view.Height, simulate: true, skipHash: opts.ReplaceRecentBlockhash})
		if terr == nil {
			r.Err, r.Logs, r.UnitsConsumed, r.Fee = res.err, nonNilLogs(res.logs), res.units, res.fee
		} else {
			r.Err = terr
		}
		if r.Err == nil {
			r.Post = snapshotAccounts(sandbox, entry(opts.Post, i))
		}
		out.Results = append(out.Results, r)
		if r.Err != nil {
			out.Failed = i
			break
		}
	}
	return out
}

// entry returns lists[i], or nil when lists is empty.
func entry(lists [][]solana.PublicKey, i int) []solana.PublicKey {
	if len(lists) == 0 {
		return nil
	}
	return lists[i]
}

// snapshotAccounts copies the states of keys in st.
func snapshotAccounts(st svm.Store, keys []solana.PublicKey) []*svm.Account {
	if keys == nil {
		return nil
	}
	out := make([]*svm.Account, len(keys))
	for i, k := range keys {
		if a, ok := st.Get(k); ok {
			cp := a.Clone()
			out[i] = &cp
		}
	}
	return out
}
