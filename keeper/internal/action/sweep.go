package action

import (
	"context"

	"github.com/keeper-project/keeper/keeper/journal"
)

// Sweep settles from the chain, as startup recovery does, every action of
// pending with an open attempt that no action path of this process holds:
// those the running daemon left unsettled because an outcome could not be
// journaled (a database restart, a full disk) or because a lazy commit was
// lost with the database server. Without it such an action would hold its
// target until the next start, and its policy would not act on it again.
// It returns how many actions it settled. An action whose target is held
// is left for a later sweep; one being settled here holds its target, so a
// run planning it waits.
func (e *Executor) Sweep(ctx context.Context, pending []journal.Action) int {
	n := 0
	for _, act := range pending {
		att, open := act.OpenAttempt()
		if !open || act.DryRun || ctx.Err() != nil {
			continue
		}
		p := fromJournal(act, att)
		if !e.claims.takeIdle(p) {
			continue // this process is acting on the target now
		}
		log := e.cfg.Logger.With("policy", act.Policy, "action", ShortID(act.ID), "kind", act.Kind, "target", act.Target)
		out, _ := (&recovery{e: e, log: log, act: act}).settleOpen(ctx)
		e.claims.release(p, out, e.cfg.Now())
		if out != OutcomePending {
			n++
			log.Warn("Settled an action the daemon had left unsettled", "state_before", act.State, "outcome", out)
			if mayHaveChanged(out) {
				e.cfg.Changed()
			}
		}
	}
	return n
}
