package keeper

import (
	"context"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
)

// historyReader is the journal as a policy run reads it.
type historyReader interface {
	List(ctx context.Context, f journal.Filter) ([]journal.Action, error)
}

// historyAndResumable builds the journal snapshot Evaluate applies limits
// from: per target the last action and whether one may still land, and the
// policy's spend and fees since the start of the UTC day (dry-run actions
// do not count). It also returns the policy's resumable actions in the same
// window (journal.Action.Resumable), which count toward none of that.
func historyAndResumable(ctx context.Context, j historyReader, p *policies.Policy, now time.Time) (policies.History, []journal.Action, error) {
	h := policies.History{Targets: map[string]policies.TargetHistory{}, SpentToday: map[string]uint64{}}
	day := now.UTC().Truncate(24 * time.Hour)
	since := day
	if c := now.Add(-p.Limits.Cooldown); c.Before(since) {
		since = c
	}
	acts, err := j.List(ctx, journal.Filter{Policy: p.Name, Since: since})
	if err != nil {
		return h, nil, fmt.Errorf("reading the journal for policy %s: %w", p.Name, err)
	}
	var expired []journal.Action
	for _, a := range acts {
		if a.DryRun {
			continue
		}
		if a.Resumable() {
			expired = append(expired, a)
			continue
		}
		t := h.Targets[a.Target]
		t.LastAction = later(t.LastAction, a.CreatedAt)
		t.InFlight = t.InFlight || a.State.InFlight()
		h.Targets[a.Target] = t
		if a.CreatedAt.Before(day) {
			continue
		}
		if a.Mint != "" && (a.State == journal.StateLanded || a.State.InFlight()) {
			h.SpentToday[a.Mint] += a.Amount
		}
		for _, at := range a.Attempts {
			h.FeesToday += at.FeeLamports + at.CountedTip()
		}
	}
	return h, expired, nil
}

// plannedTargets maps each target a run planned an action for (alerts
// aside) to the action's ID.
func plannedTargets(res policies.Result) map[string]string {
	planned := map[string]string{}
	for _, a := range res.Actions {
		if a.Alert == nil {
			planned[a.Target] = a.ID
		}
	}
	return planned
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
