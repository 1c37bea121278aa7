package action

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/internal/wait"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// Recover settles every journaled action of pending that has an attempt
// in flight by asking the chain, before the first tick: a landed attempt is
// recorded as landed, one whose blockhash provably expired unseen as
// expired (a later run may build a new attempt), one still valid is
// rebroadcast (same bytes) or waited for. It never builds or signs anything
// new.
func (e *Executor) Recover(ctx context.Context, pending []journal.Action) {
	for _, act := range pending {
		if _, open := act.OpenAttempt(); !open {
			continue // expired: nothing in flight; its policy resumes or supersedes it
		}
		log := e.cfg.Logger.With("policy", act.Policy, "action", ShortID(act.ID), "kind", act.Kind, "target", act.Target)
		failpoint.Hit(failpoint.InRecovery)
		out, _ := (&recovery{e: e, log: log, act: act}).settleOpen(ctx)
		log.Info("Recovered unsettled action", "state_before", act.State, "outcome", out)
	}
}

// resume handles an action the journal already holds for a plan's ID. done
// is true when nothing more may be done for it now; landed is how many
// leading transactions of an RPC sequence earlier attempts landed.
func (e *Executor) resume(ctx context.Context, log *slog.Logger, act journal.Action) (out Outcome, done bool, landed int) {
	if act.State.Final() {
		log.Debug("Action already settled", "state", act.State)
		return OutcomeSettled, true, 0
	}
	r := &recovery{e: e, log: log, act: act}
	if out, done := r.settleOpen(ctx); done {
		return out, true, 0
	}
	if hasSequence(act) {
		return r.checkSequence(ctx)
	}
	out, done = r.checkEarlier(ctx)
	return out, done, 0
}

// recovery settles one journaled action from the chain.
type recovery struct {
	e   *Executor
	log *slog.Logger
	act journal.Action
}

// settleOpen resolves act's open attempt, if any, from the chain. done is
// false when the action may take a new attempt.
func (r *recovery) settleOpen(ctx context.Context) (Outcome, bool) {
	att, open := r.act.OpenAttempt()
	if !open {
		return OutcomeRetry, false
	}
	a := &attempt{e: r.e, log: r.log, p: fromJournal(r.act, att), att: att, sigs: signatureStrings(att.Signatures), pricing: &pricing{}}
	if len(att.Signatures) == 0 {
		out := a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleAbandoned})
		return out, false
	}
	if isSequence(att) {
		return r.settleSequence(ctx, a)
	}
	st, _, ok := r.settlement(ctx, []journal.Attempt{att},
		"Journaled signatures unreadable; leaving the action for a person",
		"Cannot ask the chain about the action's signatures; leaving it for later")
	if !ok {
		return OutcomePending, true
	}
	switch st.Verdict {
	case chain.VerdictLanded:
		return a.settle(ctx, r.e.asProposal(ctx, r.act.ID, r.withTip(ctx, att, landedOutcome(st)))), true
	case chain.VerdictDead:
		out := a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleBlockhashExpired, Detail: "settled from the chain"})
		return out, false
	}
	return r.rebroadcast(ctx, a), true
}

// rebroadcast lands an attempt whose blockhash is still valid by sending the
// journaled bytes again (RPC), or waits for its bundle to land or expire.
func (r *recovery) rebroadcast(ctx context.Context, a *attempt) Outcome {
	att := a.att
	txs, err := signedFromJournal(att.Signatures)
	if err != nil || att.Mode == journal.ModeBundle {
		// Bundle transactions must not go out one by one; without the bytes
		// nothing can be sent. Either way, wait until the chain decides.
		return r.await(ctx, a)
	}
	r.log.Info("Rebroadcasting journaled transactions whose blockhash is still valid")
	res, err := r.e.cfg.Submitter.SendAndConfirm(ctx, txs)
	switch {
	case err != nil && res.Outcome == chain.OutcomeUnknown:
		return a.pending("Rebroadcast did not settle; the journal keeps it for recovery", "err", err)
	case res.Outcome == chain.OutcomeLanded:
		if out := r.e.asProposal(ctx, r.act.ID, journal.Outcome{State: journal.StateLanded}); out.Rule != "" {
			return a.settle(ctx, out)
		}
	}
	return a.record(ctx, res, nil)
}

// await polls the chain until the transactions of a's attempt land or
// provably expire, or ctx ends.
func (r *recovery) await(ctx context.Context, a *attempt) Outcome {
	att := a.att
	all, _, err := attemptRefs([]journal.Attempt{att})
	if err != nil {
		return OutcomePending
	}
	for {
		st, err := r.e.cfg.Submitter.Settle(ctx, all)
		switch {
		case err == nil && st.Verdict == chain.VerdictLanded:
			return a.settle(ctx, r.e.asProposal(ctx, r.act.ID, r.withTip(ctx, att, landedOutcome(st))))
		case err == nil && st.Verdict == chain.VerdictDead:
			return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleBlockhashExpired})
		}
		if !wait.For(ctx, r.e.cfg.Poll) {
			return OutcomePending
		}
	}
}

// checkEarlier makes sure no earlier attempt of act landed before a new
// attempt is built: only when every signature ever sent for the action is
// absent from the chain and every blockhash is invalid may it go again.
func (r *recovery) checkEarlier(ctx context.Context) (Outcome, bool) {
	st, nums, ok := r.settlement(ctx, r.act.Attempts,
		"Journaled signatures unreadable; not building a new attempt",
		"Cannot verify earlier attempts on chain; not building a new one")
	switch {
	case !ok:
		return OutcomeRetry, true
	case len(nums) == 0:
		return OutcomeRetry, false
	}
	switch st.Verdict {
	case chain.VerdictDead:
		return OutcomeRetry, false
	case chain.VerdictLanded:
		n := nums[st.Attempt]
		r.log.Error("An attempt journaled as expired landed after all; not acting again", "attempt", n)
		p := fromJournal(r.act, journal.Attempt{})
		return r.e.finish(ctx, r.log, p, journal.Outcome{State: journal.StateFailed, Rule: journal.RuleLateLanding,
			Detail: fmt.Sprintf("attempt %d landed after it was judged expired; check the wallet", n)}), true
	}
	return OutcomeRetry, true
}

// settlement asks the chain about the signatures of atts; nums[i] is the
// attempt number of the settlement's index i, and empty when no attempt
// has signatures (the chain is not asked). ok is false when the journaled
// signatures do not parse (logged as an error, unreadable) or the chain
// does not answer (logged as a warning, unanswered).
func (r *recovery) settlement(ctx context.Context, atts []journal.Attempt, unreadable, unanswered string) (st chain.Settlement, nums []int, ok bool) {
	all, nums, err := attemptRefs(atts)
	if err != nil {
		r.log.Error(unreadable, "err", err)
		return chain.Settlement{}, nil, false
	}
	if len(all) == 0 {
		return chain.Settlement{}, nil, true
	}
	if st, err = r.e.cfg.Submitter.Settle(ctx, all); err != nil {
		r.log.Warn(unanswered, "err", err)
		return chain.Settlement{}, nil, false
	}
	return st, nums, true
}

// refs parses journaled signatures for the chain. A signature that does not
// parse is an error: skipping it could make a landed attempt look dead.
func refs(sigs []journal.SignedTx) ([]chain.TxRef, error) {
	out := make([]chain.TxRef, len(sigs))
	for i, s := range sigs {
		ref, what, err := txRef(s)
		if err != nil {
			return nil, fmt.Errorf("journaled %s %d: %w", what, i, err)
		}
		out[i] = ref
	}
	return out, nil
}

// txRef parses a journaled transaction's signature and blockhash; what
// names the one that does not parse.
func txRef(s journal.SignedTx) (ref chain.TxRef, what string, err error) {
	if ref.Signature, err = solana.SignatureFromBase58(s.Signature); err != nil {
		return chain.TxRef{}, "signature", err
	}
	if ref.Blockhash, err = solana.HashFromBase58(s.Blockhash); err != nil {
		return chain.TxRef{}, "blockhash", err
	}
	return ref, "", nil
}

// attemptRefs parses the signatures of every attempt that has any; nums[i]
// is the attempt number of all[i] (attempts without signatures are skipped).
func attemptRefs(atts []journal.Attempt) (all [][]chain.TxRef, nums []int, err error) {
	for _, a := range atts {
		if len(a.Signatures) == 0 {
			continue
		}
		r, err := refs(a.Signatures)
		if err != nil {
			return nil, nil, fmt.Errorf("attempt %d: %w", a.Number, err)
		}
		all = append(all, r)
		nums = append(nums, a.Number)
	}
	return all, nums, nil
}

// landedOutcome is the journal outcome of an attempt Settle found on chain:
// failed when one of its transactions landed with an error, else landed.
func landedOutcome(st chain.Settlement) journal.Outcome {
	if st.Attempt >= 0 && st.Attempt < len(st.Statuses) {
		for i, s := range st.Statuses[st.Attempt] {
			if s.Err != nil {
				return journal.Outcome{State: journal.StateFailed, Rule: journal.RuleChainFailed,
					Detail: fmt.Sprintf("settled from the chain: transaction %d (%s) landed and failed", i, s.Signature)}
			}
		}
	}
	return journal.Outcome{State: journal.StateLanded, Detail: "settled from the chain"}
}

// withTip adds to out the lamports of att's tip transaction that landed
// (a bundle's tips are journaled; at most one lands, with its bundle).
func (r *recovery) withTip(ctx context.Context, att journal.Attempt, out journal.Outcome) journal.Outcome {
	if len(att.Tips) == 0 {
		return out
	}
	sigs := make([]solana.Signature, 0, len(att.Tips))
	for _, t := range att.Tips {
		if sig, err := solana.SignatureFromBase58(t.Signature); err == nil {
			sigs = append(sigs, sig)
		}
	}
	st, err := r.e.cfg.Submitter.Statuses(ctx, sigs)
	if err != nil {
		r.log.Warn("Cannot tell which tip landed; recording none", "err", err)
		return out
	}
	for i, s := range st {
		if s.Found && i < len(att.Tips) {
			out.TipLamports = att.Tips[i].Lamports
			break
		}
	}
	return out
}

// signedFromJournal restores the signed transactions an attempt journaled.
func signedFromJournal(sigs []journal.SignedTx) ([]chain.Signed, error) {
	out := make([]chain.Signed, len(sigs))
	for i, s := range sigs {
		raw, err := base64.StdEncoding.DecodeString(s.Transaction)
		if err != nil || len(raw) == 0 {
			return nil, fmt.Errorf("transaction %d: signed bytes not journaled", i)
		}
		ref, _, err := txRef(s)
		if err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
		out[i] = chain.Signed{Raw: raw, Signature: ref.Signature, Blockhash: ref.Blockhash}
	}
	return out, nil
}
