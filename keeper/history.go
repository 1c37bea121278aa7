package keeper

import (
	"context"
	"fmt"
	"strings"
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
		if resumable(a) {
			expired = append(expired, a)
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
			h.FeesToday += at.FeeLamports + at.CountedTip()
		}
	}
	return h, expired, nil
}

// resumable reports an action that nothing of is in flight and that its
// policy carries on as the same action when it plans it again: expired (every
// attempt provably failed to land), or planned without an attempt (a crash
// right after the intent was journaled). It neither holds its target as in
// flight nor starts the target's cooldown, nor counts toward the day's spend:
// otherwise a crash or an expiry would hold back the action it interrupted
// for a whole cooldown, or, for a bare intent, forever.
func resumable(a journal.Action) bool {
	return a.State == journal.StateExpired || a.State == journal.StatePlanned && a.AttemptCount == 0
}

// supersede closes the resumable actions of targets the policy now plans a
// different action for: with new inputs, the old intent will never be
// planned again, so it is final (skipped, rule superseded) rather than
// pending forever. Only actions whose every attempt provably failed to land
// are expired, and a bare intent never had an attempt, so nothing of theirs
// can land any more. An expired sequence
// whose leading transactions landed (its rule sequence-partial) is closed
// with the rule superseded-after-partial and its detail kept, so the journal
// says that part of it is on chain and the new plan carries the rest.
func (k *Keeper) supersede(ctx context.Context, expired []journal.Action, res policies.Result) {
	planned := map[string]string{} // target → planned action ID
	for _, a := range res.Actions {
		if a.Alert == nil {
			planned[a.Target] = a.ID
		}
	}
	for _, old := range expired {
		id, ok := planned[old.Target]
		if !ok || id == old.ID {
			continue
		}
		p := planOf(old, journal.Attempt{})
		log := k.logger.With("policy", old.Policy, "action", shortID(old.ID), "target", old.Target)
		log.Info("Closing an interrupted action superseded by a new plan", "by", shortID(id), "state", old.State, "rule", old.Rule)
		out := journal.Outcome{State: journal.StateSkipped, Rule: ruleSuperseded, Detail: "superseded by " + id}
		if old.Rule == ruleSequencePartial {
			out.Rule = ruleSupersededPartial
			out.Detail = strings.TrimSuffix(old.Detail, continuesNote) + "; the rest superseded by " + id
		}
		k.finish(ctx, log, p, out)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
