package keeper

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
)

// OutcomeExpired means an attempt provably expired without landing, so the
// next attempt may be built at once.
const OutcomeExpired Outcome = "expired"

// journalTimeout bounds a journal write made after the run's context ended:
// an outcome is recorded even when the run ran out of time.
const journalTimeout = 10 * time.Second

// settle records an attempt's outcome in the journal, counts it and
// notifies.
func (k *Keeper) settle(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, out journal.Outcome) Outcome {
	failpoint.Hit(failpoint.BeforeOutcome)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
	defer cancel()
	if err := k.journal.Settle(wctx, p.ID, att.Number, out); err != nil {
		log.Error("Cannot journal the outcome", "state", out.State, "err", err)
	}
	return k.report(p, out)
}

// finish records a final outcome for an action with no open attempt.
func (k *Keeper) finish(ctx context.Context, log *slog.Logger, p Plan, out journal.Outcome) Outcome {
	failpoint.Hit(failpoint.BeforeOutcome)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
	defer cancel()
	if err := k.journal.Finish(wctx, p.ID, out); err != nil {
		log.Error("Cannot journal the outcome", "state", out.State, "err", err)
	}
	return k.report(p, out)
}

// report counts an outcome and sends the notifications it calls for.
func (k *Keeper) report(p Plan, out journal.Outcome) Outcome {
	var o Outcome
	var ev notify.Event
	switch out.State {
	case journal.StateLanded:
		o, ev = OutcomeLanded, notify.Landed
	case journal.StateFailed:
		o, ev = OutcomeFailed, notify.Failed
	case journal.StateRefused:
		o, ev = OutcomeRefused, notify.Refused
	case journal.StateExpired:
		o = OutcomeRetry
		if out.Rule == "blockhash-expired" {
			o = OutcomeExpired
		}
	case journal.StateSkipped:
		o = OutcomeDryRun
		if out.Rule == ruleAlreadyClaimed || out.Rule == ruleSequenceLanded {
			o = OutcomeAlreadyDone
		}
	default:
		o = OutcomePending
	}
	k.count(p, o)
	if ev != "" && k.notifier != nil && p.wants(ev) {
		k.notifier.Notify(notify.Message{Event: ev, Policy: p.Policy, Kind: string(p.Kind), Target: p.Target,
			ActionID: p.ID, Reason: p.Reason, Detail: detail(out), To: p.Notify, Time: k.now()})
	}
	return o
}

// count adds an outcome to the actions metric.
func (k *Keeper) count(p Plan, o Outcome) {
	k.metrics.Actions.WithLabelValues(p.Policy, string(p.Kind), string(o)).Inc()
}

func detail(out journal.Outcome) string {
	switch {
	case out.Rule != "" && out.Detail != "":
		return out.Rule + ": " + out.Detail
	case out.Rule != "":
		return out.Rule
	}
	return out.Detail
}

// dryRun journals p as skipped under a dry-run ID (so turning dry run off
// later does not find the action already settled) and logs the plan.
func (k *Keeper) dryRun(ctx context.Context, log *slog.Logger, p Plan) Outcome {
	p.ID = "dry-" + p.ID
	p.DryRun = true
	log.Info("Dry run: would act", "reason", p.Reason)
	if _, created, err := k.journal.Begin(ctx, p.intent()); err != nil {
		log.Error("Cannot journal the dry-run plan", "err", err)
		return OutcomeDryRun
	} else if !created {
		return OutcomeDryRun
	}
	k.finish(ctx, log, p, journal.Outcome{State: journal.StateSkipped, Rule: "dry-run"})
	return OutcomeDryRun
}

// paused reports whether the kill switch file exists, and says so.
func (k *Keeper) paused() (string, bool) {
	if k.cfg.KillSwitch == "" {
		return "", false
	}
	if _, err := os.Stat(k.cfg.KillSwitch); err != nil {
		k.metrics.Paused.Set(0)
		return "", false
	}
	k.metrics.Paused.Set(1)
	return "kill switch " + k.cfg.KillSwitch + " exists", true
}

// wants reports whether p's notifiers hear of event e.
func (p Plan) wants(e notify.Event) bool {
	if len(p.NotifyOn) == 0 {
		return e == notify.Failed || e == notify.Refused
	}
	return slices.Contains(p.NotifyOn, e)
}
