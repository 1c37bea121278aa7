package keeper

import (
	"context"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
)

// history builds the journal snapshot Evaluate applies limits from: per
// target the last action and whether one may still land, and the policy's
// spend and fees since the start of the UTC day. Dry-run actions do not
// count.
func (k *Keeper) history(ctx context.Context, p *policies.Policy, now time.Time) (policies.History, error) {
	h, _, err := k.historyAndExpired(ctx, p, now)
	return h, err
}

// historyAndExpired is history, plus the policy's resumable actions in the
// same window: expired ones (no attempt in flight, a new one allowed) and
// bare intents (journaled, then a crash before any attempt).
func (k *Keeper) historyAndExpired(ctx context.Context, p *policies.Policy, now time.Time) (policies.History, []journal.Action, error) {
	h := policies.History{Targets: map[string]policies.TargetHistory{}, SpentToday: map[string]uint64{}}
	day := now.UTC().Truncate(24 * time.Hour)
	since := day
	if c := now.Add(-p.Limits.Cooldown); c.Before(since) {
		since = c
	}
	acts, err := k.journal.List(ctx, journal.Filter{Policy: p.Name, Since: since})
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
