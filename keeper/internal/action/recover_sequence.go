package action

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/wait"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// isSequence reports whether att landed (or lands) an answer of several
// transactions over RPC, one after the other.
func isSequence(att journal.Attempt) bool {
	return att.Mode != journal.ModeBundle && len(att.Transactions) > 1
}

// hasSequence reports whether any attempt of act is an RPC sequence.
func hasSequence(act journal.Action) bool {
	for _, a := range act.Attempts {
		if isSequence(a) {
			return true
		}
	}
	return false
}

// progress is what the chain says of an RPC sequence's transactions, by
// their index in the market's answer, over every attempt.
type progress struct {
	landed  map[int]bool    // landed without error
	failed  bool            // some transaction landed with an error
	pending bool            // some transaction is seen below the commitment
	unseen  [][]chain.TxRef // per attempt, the transactions the chain has not seen
}

// prefix is how many leading transactions of the answer landed.
func (pr progress) prefix() int {
	n := 0
	for pr.landed[n] {
		n++
	}
	return n
}

// progress asks the chain about every journaled transaction of atts. The
// journal keeps an attempt's built transactions (the whole answer) and the
// signatures of those it signed (the tail after what earlier attempts
// landed), so the signatures' answer indexes follow.
func (r *recovery) progress(ctx context.Context, atts []journal.Attempt) (progress, error) {
	pr := progress{landed: map[int]bool{}}
	type at struct{ attempt, index int }
	var where []at
	var all []chain.TxRef
	for ai, a := range atts {
		r, err := refs(a.Signatures)
		if err != nil {
			return pr, fmt.Errorf("attempt %d: %w", a.Number, err)
		}
		off := max(0, len(a.Transactions)-len(a.Signatures))
		for j, ref := range r {
			all = append(all, ref)
			where = append(where, at{ai, off + j})
		}
	}
	pr.unseen = make([][]chain.TxRef, len(atts))
	if len(all) == 0 {
		return pr, nil
	}
	sigs := make([]solana.Signature, len(all))
	for i, r := range all {
		sigs[i] = r.Signature
	}
	sts, err := r.e.cfg.Submitter.Statuses(ctx, sigs)
	if err != nil {
		return pr, err
	}
	cm := r.e.cfg.Commitment
	for i, st := range sts {
		w := where[i]
		switch {
		case !st.Found:
			pr.unseen[w.attempt] = append(pr.unseen[w.attempt], all[i])
		case !st.Reached(cm):
			pr.pending = true
		case st.Err != nil:
			pr.failed = true
		default:
			pr.landed[w.index] = true
		}
	}
	return pr, nil
}

// unseenDead reports whether none of the transactions the chain has not seen
// can land any more: every blockhash expired. Those never sent are among
// them; they cannot land without being sent.
func (r *recovery) unseenDead(ctx context.Context, pr progress) (bool, error) {
	var atts [][]chain.TxRef
	for _, u := range pr.unseen {
		if len(u) > 0 {
			atts = append(atts, u)
		}
	}
	if len(atts) == 0 {
		return true, nil
	}
	st, err := r.e.cfg.Submitter.Settle(ctx, atts)
	if err != nil {
		return false, err
	}
	return st.Verdict == chain.VerdictDead, nil
}

// checkSequence decides, before a new attempt of an action with RPC
// sequences, how many leading transactions earlier attempts landed. done
// is true when no new attempt may be built now: a transaction is still in
// flight, or the chain cannot be asked.
func (r *recovery) checkSequence(ctx context.Context) (Outcome, bool, int) {
	pr, err := r.progress(ctx, r.act.Attempts)
	if err != nil {
		r.log.Warn("Cannot verify earlier attempts on chain; not building a new one", "err", err)
		return OutcomeRetry, true, 0
	}
	if pr.pending {
		return OutcomeRetry, true, 0
	}
	dead, err := r.unseenDead(ctx, pr)
	if err != nil || !dead {
		r.log.Info("Earlier transactions of the sequence may still land; waiting", "err", err)
		return OutcomeRetry, true, 0
	}
	n := pr.prefix()
	if last := r.act.Attempts[len(r.act.Attempts)-1]; len(last.Transactions) > 0 && n >= len(last.Transactions) {
		p := fromJournal(r.act, last)
		return r.e.finish(ctx, r.log, p, journal.Outcome{State: journal.StateSkipped, Rule: journal.RuleSequenceLanded,
			Detail: fmt.Sprintf("all %d transactions of the answer landed over earlier attempts", n)}), true, 0
	}
	return OutcomeRetry, false, n
}

// settleSequence settles the open attempt of an RPC sequence from the chain
// (recovery after a crash): all landed is landed; a prefix landed and the
// rest dead is a stop midway (the next attempt continues); anything still
// able to land is waited for, polling, until the chain decides or ctx ends.
// Recovery never sends a sequence's next transaction: it was not simulated
// on its predecessors' state.
func (r *recovery) settleSequence(ctx context.Context, a *attempt) (Outcome, bool) {
	for waited := false; ; waited = true {
		out, done, decided := r.settleSequenceNow(ctx, a)
		if decided {
			return out, done
		}
		if !waited {
			r.log.Info("Transactions of the sequence may still land; waiting for the chain to decide")
		}
		if !wait.For(ctx, r.e.cfg.Poll) {
			return OutcomePending, true
		}
	}
}

// settleSequenceNow is one look of settleSequence at the chain; decided is
// false while a transaction may still land or the chain cannot be asked.
func (r *recovery) settleSequenceNow(ctx context.Context, a *attempt) (out Outcome, done, decided bool) {
	pr, err := r.progress(ctx, []journal.Attempt{a.att})
	if err != nil {
		r.log.Warn("Cannot ask the chain about the sequence; trying again", "err", err)
		return OutcomePending, true, false
	}
	first := max(0, len(a.att.Transactions)-len(a.att.Signatures))
	for i := range first {
		pr.landed[i] = true // earlier attempts landed these: this one signed only the rest
	}
	n := pr.prefix()
	switch {
	case n >= len(a.att.Transactions):
		return a.settle(ctx, journal.Outcome{State: journal.StateLanded, Detail: "settled from the chain"}), true, true
	case pr.pending:
		return OutcomePending, true, false
	}
	if dead, err := r.unseenDead(ctx, pr); err != nil || !dead {
		return OutcomePending, true, false
	}
	if n <= first && !pr.failed {
		return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleBlockhashExpired, Detail: "settled from the chain"}), false, true
	}
	detail := fmt.Sprintf("settled from the chain: %s of %d landed"+continuesNote,
		leadingTxs(n), len(a.att.Transactions))
	if pr.failed {
		detail += "; a transaction landed and failed"
	}
	return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSequencePartial, Detail: detail}), false, true
}
