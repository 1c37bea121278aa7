package keeper

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// Rules of an RPC sequence that stopped midway.
const (
	// ruleSequencePartial: some leading transactions landed, the next did
	// not; the next attempt continues after the ones that landed.
	ruleSequencePartial = "sequence-partial"
	// ruleSequenceLanded: every transaction of the answer landed, over
	// several attempts; nothing is left to do. (The journal's landed state
	// belongs to one attempt that landed whole.)
	ruleSequenceLanded = "sequence-landed"
	// ruleSuperseded closes an expired action that a new plan for its
	// target replaces; ruleSupersededPartial one whose leading transactions
	// landed before it expired (see supersede).
	ruleSuperseded        = "superseded"
	ruleSupersededPartial = "superseded-after-partial"
)

// continuesNote ends the detail of a sequence stopped midway.
const continuesNote = "; the next attempt continues from there"

// submitSequence lands the transactions of one answer over RPC in order:
// each is simulated right before its own send on the state its
// predecessors left (the first was simulated when it was signed), sent and
// confirmed before the next. A stop midway settles the attempt as expired
// with which transactions landed, and the next attempt continues from there
// without sending those again.
func (k *Keeper) submitSequence(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set signedSet) Outcome {
	var fee uint64
	for i := range set.txs {
		if i >= set.simulated {
			if out, ok := k.simulateNext(ctx, log, p, att, &set); !ok {
				log.Warn("Sequence stopped before a transaction's send", "tx", set.first+i, "landed_before", landedRange(set, i), "outcome", out)
				return out
			}
		}
		res, err := k.submitter.SendAndConfirm(ctx, set.txs[i:i+1])
		failpoint.Hit(failpoint.AfterConfirm)
		if err != nil && res.Outcome == chain.OutcomeUnknown {
			log.Warn("Submission did not settle; the journal keeps it for recovery", "tx", set.first+i, "err", err)
			k.count(p, OutcomePending)
			return OutcomePending
		}
		if res.Outcome != chain.OutcomeLanded && i == 0 {
			return k.record(ctx, log, p, att, res, set.fees[:1])
		}
		stepFee, _ := resultCosts(res, set.fees[i:i+1])
		fee += stepFee
		if res.Outcome != chain.OutcomeLanded {
			return k.sequenceStopped(ctx, log, p, att, set, i, res, fee)
		}
		log.Debug("Sequence transaction landed", "tx", set.first+i, "signature", set.txs[i].Signature)
	}
	log.Info("Action landed", "reason", p.Reason, "signatures", sequenceSignatures(set), "route", chain.RouteRPC.String(),
		"transactions", len(set.txs))
	return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateLanded, FeeLamports: fee})
}

// sequenceStopped settles an attempt whose transaction i did not land after
// the ones before it did.
func (k *Keeper) sequenceStopped(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set signedSet, i int, res chain.Result, fee uint64) Outcome {
	why := res.Outcome.String()
	if res.Outcome == chain.OutcomeFailed || res.Outcome == chain.OutcomePartial {
		why += ": " + txErrors(res)
	}
	detail := fmt.Sprintf("transactions %s of %d landed; transaction %d %s"+continuesNote,
		landedRange(set, i), set.first+len(set.txs), set.first+i, why)
	log.Warn("Sequence stopped midway", "detail", detail)
	return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: ruleSequencePartial, Detail: detail, FeeLamports: fee})
}

// landedRange names the transactions of set before i, by answer index.
func landedRange(set signedSet, i int) string {
	switch {
	case i == 0 && set.first == 0:
		return "none"
	case i == 0:
		return fmt.Sprintf("0-%d (earlier attempts)", set.first-1)
	}
	return fmt.Sprintf("0-%d", set.first+i-1)
}

func sequenceSignatures(set signedSet) []string {
	out := make([]string, len(set.txs))
	for i, t := range set.txs {
		out[i] = t.Signature.String()
	}
	return out
}

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

// sequenceProgress asks the chain about every journaled transaction of
// act's attempts. The journal keeps an attempt's built transactions (the
// whole answer) and the signatures of those it signed (the tail after what
// earlier attempts landed), so the signatures' answer indexes follow.
func (k *Keeper) sequenceProgress(ctx context.Context, atts []journal.Attempt) (progress, error) {
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
	sts, err := k.submitter.Statuses(ctx, sigs)
	if err != nil {
		return pr, err
	}
	cm := rpc.CommitmentType(k.cfg.Chain.Commitment)
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
func (k *Keeper) unseenDead(ctx context.Context, pr progress) (bool, error) {
	var atts [][]chain.TxRef
	for _, u := range pr.unseen {
		if len(u) > 0 {
			atts = append(atts, u)
		}
	}
	if len(atts) == 0 {
		return true, nil
	}
	st, err := k.submitter.Settle(ctx, atts)
	if err != nil {
		return false, err
	}
	return st.Verdict == chain.VerdictDead, nil
}

// checkSequence decides, before a new attempt of an action with RPC
// sequences, how many leading transactions earlier attempts landed. done
// is true when no new attempt may be built now: a transaction is still in
// flight, or the chain cannot be asked.
func (k *Keeper) checkSequence(ctx context.Context, log *slog.Logger, act journal.Action) (Outcome, bool, int) {
	pr, err := k.sequenceProgress(ctx, act.Attempts)
	if err != nil {
		log.Warn("Cannot verify earlier attempts on chain; not building a new one", "err", err)
		return OutcomeRetry, true, 0
	}
	if pr.pending {
		return OutcomeRetry, true, 0
	}
	dead, err := k.unseenDead(ctx, pr)
	if err != nil || !dead {
		log.Info("Earlier transactions of the sequence may still land; waiting", "err", err)
		return OutcomeRetry, true, 0
	}
	n := pr.prefix()
	if last := act.Attempts[len(act.Attempts)-1]; len(last.Transactions) > 0 && n >= len(last.Transactions) {
		p := planOf(act, last)
		return k.finish(ctx, log, p, journal.Outcome{State: journal.StateSkipped, Rule: ruleSequenceLanded,
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
func (k *Keeper) settleSequence(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt) (Outcome, bool) {
	for waited := false; ; waited = true {
		out, done, decided := k.settleSequenceNow(ctx, log, p, att)
		if decided {
			return out, done
		}
		if !waited {
			log.Info("Transactions of the sequence may still land; waiting for the chain to decide")
		}
		if !sleepCtx(ctx, k.cfg.Chain.Poll) {
			return OutcomePending, true
		}
	}
}

// settleSequenceNow is one look of settleSequence at the chain; decided is
// false while a transaction may still land or the chain cannot be asked.
func (k *Keeper) settleSequenceNow(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt) (out Outcome, done, decided bool) {
	pr, err := k.sequenceProgress(ctx, []journal.Attempt{att})
	if err != nil {
		log.Warn("Cannot ask the chain about the sequence; trying again", "err", err)
		return OutcomePending, true, false
	}
	first := max(0, len(att.Transactions)-len(att.Signatures))
	for i := range first {
		pr.landed[i] = true // earlier attempts landed these: this one signed only the rest
	}
	n := pr.prefix()
	switch {
	case n >= len(att.Transactions):
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateLanded, Detail: "settled from the chain"}), true, true
	case pr.pending:
		return OutcomePending, true, false
	}
	if dead, err := k.unseenDead(ctx, pr); err != nil || !dead {
		return OutcomePending, true, false
	}
	if n <= first && !pr.failed {
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "blockhash-expired", Detail: "settled from the chain"}), false, true
	}
	detail := fmt.Sprintf("settled from the chain: transactions %s of %d landed"+continuesNote,
		rangeOf(n), len(att.Transactions))
	if pr.failed {
		detail += "; a transaction landed and failed"
	}
	return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: ruleSequencePartial, Detail: detail}), false, true
}

func rangeOf(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprintf("0-%d", n-1)
}

// sameShape returns first when the market's answer to attempt att has as
// many transactions as the answer the earlier attempts landed a part of, so
// its indexes mean the same; otherwise the market built something else for
// what is left (the state changed), and all of it is sent: 0.
func (k *Keeper) sameShape(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, txs []built, first int) int {
	if first == 0 {
		return 0
	}
	act, err := k.journal.Get(ctx, p.ID)
	if err != nil {
		log.Warn("Cannot read the earlier attempts; sending the whole answer", "err", err)
		return 0
	}
	for i := len(act.Attempts) - 1; i >= 0; i-- {
		a := act.Attempts[i]
		if a.Number >= att.Number || len(a.Transactions) == 0 {
			continue
		}
		if len(a.Transactions) == len(txs) {
			return first
		}
		log.Warn("The market's answer changed shape since the sequence stopped; sending all of it",
			"landed_before", first, "built_before", len(a.Transactions), "built", len(txs))
		return 0
	}
	return 0
}
