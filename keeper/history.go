package keeper

import (
	"context"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
)

// inFlight are the states of an action that may still land.
var inFlight = map[journal.State]bool{journal.StatePlanned: true, journal.StateBuilt: true,
	journal.StateSigned: true, journal.StateSubmitted: true}

// history builds the journal snapshot Evaluate applies limits from: per
// target the last action and whether one may still land, and the policy's
// spend and fees since the start of the UTC day. Dry-run actions do not
// count.
func (k *Keeper) history(ctx context.Context, p *policies.Policy, now time.Time) (policies.History, error) {
	h := policies.History{Targets: map[string]policies.TargetHistory{}, SpentToday: map[string]uint64{}}
	day := now.UTC().Truncate(24 * time.Hour)
	since := day
	if c := now.Add(-p.Limits.Cooldown); c.Before(since) {
		since = c
	}
	acts, err := k.journal.List(ctx, journal.Filter{Policy: p.Name, Since: since})
	if err != nil {
		return h, fmt.Errorf("reading the journal for policy %s: %w", p.Name, err)
	}
	for _, a := range acts {
		if a.DryRun {
			continue
		}
		t := h.Targets[a.Target]
		t.LastAction = later(t.LastAction, a.CreatedAt)
		t.InFlight = t.InFlight || inFlight[a.State]
		h.Targets[a.Target] = t
		if a.CreatedAt.Before(day) {
			continue
		}
		if a.Mint != "" && (a.State == journal.StateLanded || inFlight[a.State]) {
			h.SpentToday[a.Mint] += a.Amount
		}
		for _, at := range a.Attempts {
			h.FeesToday += at.FeeLamports + at.TipLamports
		}
	}
	return h, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
