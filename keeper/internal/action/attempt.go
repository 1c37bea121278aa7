package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market/api"
)

// attempt is one journaled attempt of a plan: its build, guard, signing,
// submission and settlement.
type attempt struct {
	e   *Executor
	log *slog.Logger
	p   Plan
	att journal.Attempt
	// sigs are the signatures the attempt journaled, once it has: what its
	// notifications link to.
	sigs []string
	// pricing is what the action's attempts learnt of its price; route is
	// how this attempt's answer is priced and lands.
	pricing *pricing
	route   route
	// asBuilt is the simulation of the answer as built, made beside the
	// fee read, until the guard takes it (see readFeesAndSimulate).
	asBuilt *asBuilt
}

// run is one pass of the action path: build → journal built → guard →
// simulate unsigned → sign → journal signed → send → confirm → settle. The
// transactions before index first landed in earlier attempts and are not
// signed again.
func (a *attempt) run(ctx context.Context, first int) Outcome {
	if a.p.Squads != nil {
		return a.propose(ctx)
	}
	j := a.e.cfg.Journal
	txs, out, ok := a.buildRouted(ctx)
	if !ok {
		return out
	}
	if a.route.why != "" {
		a.log.Info("Routed the answer", "route", a.route.why)
	}
	if err := j.RecordBuilt(ctx, a.p.ID, a.att.Number, buildRecord(txs, a.p.Submit)); err != nil {
		return a.notJournaled(ctx, "Cannot journal the built transactions; not signing", err)
	}
	failpoint.Hit(failpoint.AfterBuild)
	first = a.sameShape(ctx, txs, first)
	if first >= len(txs) {
		a.log.Warn("Every transaction of the answer landed in earlier attempts", "landed", first, "built", len(txs))
		return a.settle(ctx, journal.Outcome{State: journal.StateSkipped, Rule: journal.RuleSequenceLanded,
			Detail: fmt.Sprintf("all %d transactions of the answer landed over earlier attempts", first)})
	}
	if first > 0 {
		a.log.Info("Continuing a sequence after the transactions earlier attempts landed", "landed", first, "built", len(txs))
	}
	ans, out, ok := a.sign(ctx, txs, first)
	if !ok {
		return out
	}
	failpoint.Hit(failpoint.AfterSign)
	signed := signedRecords(ans.txs)
	if err := j.RecordSigned(ctx, a.p.ID, a.att.Number, signed); err != nil {
		return a.notJournaled(ctx, "Cannot journal the signatures; not sending", err)
	}
	a.sigs = signatureStrings(signed)
	failpoint.Hit(failpoint.AfterSignatures)
	if err := j.RecordSubmitted(ctx, a.p.ID, a.att.Number); err != nil {
		a.log.Error("Cannot journal the submission; sending anyway (the signatures are journaled)", "err", err)
	}
	return ans.submit(ctx)
}

// buildFailed settles an attempt whose build failed: a retryable failure
// expires it (a later run tries again), anything else fails the action.
//
// A 409 (the market took the attempt's Idempotent-Key for another body, or
// for a request it is still processing) expires the attempt too: nothing
// was signed under that key, so no transaction of it can land, and the next
// attempt builds afresh under a new key. It is logged at ERROR and counted,
// since it should not happen; an action that meets it on every attempt
// fails after the attempts run out.
func (a *attempt) buildFailed(ctx context.Context, err error) Outcome {
	switch {
	case errors.Is(err, api.ErrIdempotencyConflict):
		a.e.cfg.Metrics.IdempotencyConflicts.Inc()
		a.log.Error("Market answered 409 to a build: it took the idempotency key for another request; a new attempt builds under a new key", "err", err)
		return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleIdempotencyConflict, Detail: err.Error()})
	case api.IsRetryable(err) || ctx.Err() != nil:
		a.log.Warn("Build failed; will retry on a later run", "err", err)
		return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleBuildRetryable, Detail: err.Error()})
	default:
		if why, done := a.alreadyClaimed(ctx); done {
			a.log.Info("Nothing to claim: the chain shows the request claimed", "detail", why, "market", err)
			return a.settle(ctx, journal.Outcome{State: journal.StateSkipped, Rule: journal.RuleAlreadyClaimed, Detail: why})
		}
		a.log.Error("Market refused to build the action", "err", err)
		return a.settle(ctx, journal.Outcome{State: journal.StateFailed, Rule: journal.RuleBuildRefused, Detail: err.Error()})
	}
}

// settle records the attempt's outcome in the journal, counts it and
// notifies.
func (a *attempt) settle(ctx context.Context, out journal.Outcome) Outcome {
	return a.settleAnd(ctx, out, nil)
}

// notJournaled settles an attempt whose step the journal did not take
// before the attempt went further, logging msg at ERROR: expired under
// rule journal, so that a later attempt may go.
func (a *attempt) notJournaled(ctx context.Context, msg string, err error) Outcome {
	a.log.Error(msg, "err", err)
	return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleJournal, Detail: err.Error()})
}

// pending leaves an attempt whose submission the chain has not settled to
// recovery, which the journal keeps it for: logged with msg and args,
// counted as pending.
func (a *attempt) pending(msg string, args ...any) Outcome {
	a.log.Warn(msg, args...)
	a.e.Count(a.p, OutcomePending)
	return OutcomePending
}

// settleAnd is settle, calling announce (when set) once the outcome is
// journaled, with what a read of the target after a landing found (see
// Config.Verify), which the journal's detail and the notification carry
// too. An outcome the journal did not take is neither announced nor
// reported: the attempt stays open in the journal, and whoever settles it
// from the chain (this daemon's sweep, or the next leader's or process's
// recovery) reports it then, once.
func (a *attempt) settleAnd(ctx context.Context, out journal.Outcome, announce func(after string)) Outcome {
	failpoint.Hit(failpoint.BeforeOutcome)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
	defer cancel()
	if err := a.e.cfg.Journal.Settle(wctx, a.p.ID, a.att.Number, out); err != nil {
		return a.e.unjournaled(a.log, a.p, out, err)
	}
	var after string
	if out.State == journal.StateLanded {
		if after = a.e.checkLanded(wctx, a.log, a.p); after != "" {
			out.Detail = after
		}
	}
	if announce != nil {
		announce(after)
	}
	return a.e.report(a.p, out, a.sigs)
}

// sameShape returns first when the market's answer to this attempt has as
// many transactions as the answer the earlier attempts landed a part of, so
// its indexes mean the same; otherwise the market built something else for
// what is left (the state changed), and all of it is sent: 0.
func (a *attempt) sameShape(ctx context.Context, txs []built, first int) int {
	if first == 0 {
		return 0
	}
	act, err := a.e.cfg.Journal.Get(ctx, a.p.ID)
	if err != nil {
		a.log.Warn("Cannot read the earlier attempts; sending the whole answer", "err", err)
		return 0
	}
	for i := len(act.Attempts) - 1; i >= 0; i-- {
		prev := act.Attempts[i]
		if prev.Number >= a.att.Number || len(prev.Transactions) == 0 {
			continue
		}
		if len(prev.Transactions) == len(txs) {
			return first
		}
		a.log.Warn("The market's answer changed shape since the sequence stopped; sending all of it",
			"landed_before", first, "built_before", len(prev.Transactions), "built", len(txs))
		return 0
	}
	return 0
}

// buildRecord is the journal form of a build.
func buildRecord(txs []built, s Submit) journal.Build {
	b := journal.Build{Mode: s.Mode}
	for _, t := range txs {
		b.Transactions = append(b.Transactions, t.journalForm())
	}
	return b
}

// signatureStrings lists the signatures of journaled transactions.
func signatureStrings(txs []journal.SignedTx) []string {
	out := make([]string, len(txs))
	for i, t := range txs {
		out[i] = t.Signature
	}
	return out
}
