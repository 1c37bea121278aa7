package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
)

// maxAttempts bounds the builds of one action; after that it fails and a
// person looks at it.
const maxAttempts = 5

// Outcome is what became of one plan on the action path.
type Outcome string

// The outcomes of the action path.
const (
	OutcomeLanded   Outcome = "landed"
	OutcomeFailed   Outcome = "failed"
	OutcomeRefused  Outcome = "refused"
	OutcomeRetry    Outcome = "retry"   // nothing landed; a later run may try again
	OutcomePending  Outcome = "pending" // sent, not yet settled (the run ended first)
	OutcomeSettled  Outcome = "settled" // journaled as final by an earlier run
	OutcomeDryRun   Outcome = "dry_run"
	OutcomePaused   Outcome = "paused"
	OutcomeNotTaken Outcome = "not_taken" // the journal could not record the intent
)

// execute takes p along the action path: journal the intent, build, guard,
// sign, journal the signatures, submit, confirm, record. Nothing leaves the
// process before the intent and then the signatures are durable.
func (k *Keeper) execute(ctx context.Context, run RunInfo, p Plan) Outcome {
	log := k.logger.With("policy", p.Policy, "run", run.ID, "action", shortID(p.ID), "kind", p.Kind, "target", p.Target)
	if p.DryRun {
		return k.dryRun(ctx, log, p)
	}
	if reason, paused := k.paused(); paused {
		log.Warn("Not acting: keeper is paused", "reason", reason, "plan", p.Reason)
		return OutcomePaused
	}
	release, reason, ok := k.claimTarget(ctx, p)
	if !ok {
		log.Info("Not acting: the target is another action's; the next run decides afresh", "reason", reason, "plan", p.Reason)
		k.count(p, OutcomeBusy)
		return OutcomeBusy
	}
	out := k.take(ctx, log, p)
	release(out)
	return out
}

// take journals p's intent, or finds it journaled, and carries it on.
func (k *Keeper) take(ctx context.Context, log *slog.Logger, p Plan) Outcome {
	act, created, err := k.journal.Begin(ctx, p.intent())
	if err != nil {
		log.Error("Cannot journal the intent; not acting", "err", err)
		return OutcomeNotTaken
	}
	failpoint.Hit(failpoint.AfterIntent)
	first := 0
	if !created {
		out, done, landed := k.resume(ctx, log, act)
		if done {
			return out
		}
		first = landed
		if act, err = k.journal.Get(ctx, p.ID); err != nil {
			log.Error("Cannot read the journaled action", "err", err)
			return OutcomeNotTaken
		}
	}
	return k.attempts(ctx, log, p, act.AttemptCount, first)
}

// attempts builds and lands p, starting a new attempt after each proven
// expiry, up to maxAttempts in all. first is how many leading transactions
// of the answer earlier attempts landed (an RPC sequence stopped midway).
func (k *Keeper) attempts(ctx context.Context, log *slog.Logger, p Plan, done, first int) Outcome {
	for n := done; n < maxAttempts; n++ {
		if ctx.Err() != nil {
			return OutcomeRetry
		}
		att, err := k.journal.NewAttempt(ctx, p.ID)
		if err != nil {
			log.Error("Cannot start an attempt", "err", err)
			return OutcomeNotTaken
		}
		out := k.attempt(ctx, log.With("attempt", att.Number), p, att, first)
		if out != OutcomeExpired {
			return out
		}
	}
	k.finish(ctx, log, p, journal.Outcome{State: journal.StateFailed, Rule: "max-attempts",
		Detail: fmt.Sprintf("%d attempts expired without landing", maxAttempts)})
	return OutcomeFailed
}

// attempt is one build → guard → sign → submit pass. The transactions
// before index first landed in earlier attempts and are not signed again.
func (k *Keeper) attempt(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, first int) Outcome {
	txs, err := build(ctx, k.market, market.IdempotencyKey(att.IdempotencyKey), p.Request)
	if err != nil {
		return k.buildFailed(ctx, log, p, att, err)
	}
	if err := k.journal.RecordBuilt(ctx, p.ID, att.Number, buildRecord(txs, p.Submit)); err != nil {
		log.Error("Cannot journal the built transactions; not signing", "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "journal", Detail: err.Error()})
	}
	failpoint.Hit(failpoint.AfterBuild)
	first = k.sameShape(ctx, log, p, att, txs, first)
	if first >= len(txs) {
		log.Warn("Every transaction of the answer landed in earlier attempts", "landed", first, "built", len(txs))
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateSkipped, Rule: ruleSequenceLanded,
			Detail: fmt.Sprintf("all %d transactions of the answer landed over earlier attempts", first)})
	}
	if first > 0 {
		log.Info("Continuing a sequence after the transactions earlier attempts landed", "landed", first, "built", len(txs))
	}
	signed, out, ok := k.guardAndSign(ctx, log, p, att, txs, first)
	if !ok {
		return out
	}
	failpoint.Hit(failpoint.AfterSign)
	if err := k.journal.RecordSigned(ctx, p.ID, att.Number, signedRecords(signed.txs)); err != nil {
		log.Error("Cannot journal the signatures; not sending", "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "journal", Detail: err.Error()})
	}
	failpoint.Hit(failpoint.AfterSignatures)
	if err := k.journal.RecordSubmitted(ctx, p.ID, att.Number); err != nil {
		log.Warn("Cannot journal the submission; sending anyway (the signatures are journaled)", "err", err)
	}
	return k.submit(ctx, log, p, att, signed)
}

// buildFailed settles an attempt whose build failed: a retryable failure
// expires it (a later run tries again), anything else fails the action.
func (k *Keeper) buildFailed(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, err error) Outcome {
	switch {
	case errors.Is(err, market.ErrIdempotencyConflict):
		k.metrics.IdempotencyConflicts.Inc()
		log.Error("Market answered 409 to a build: idempotency key reused with another body (a bug)", "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateFailed, Rule: "idempotency-conflict", Detail: err.Error()})
	case market.IsRetryable(err) || ctx.Err() != nil:
		log.Warn("Build failed; will retry on a later run", "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "build-retryable", Detail: err.Error()})
	default:
		if why, done := k.alreadyClaimed(ctx, p); done {
			log.Info("Nothing to claim: the chain shows the request claimed", "detail", why, "market", err)
			return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateSkipped, Rule: ruleAlreadyClaimed, Detail: why})
		}
		log.Error("Market refused to build the action", "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateFailed, Rule: "build-refused", Detail: err.Error()})
	}
}

// buildRecord is the journal form of a build.
func buildRecord(txs []built, s Submit) journal.Build {
	b := journal.Build{Mode: s.Mode}
	for _, t := range txs {
		b.Transactions = append(b.Transactions, t.journalForm())
	}
	return b
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
