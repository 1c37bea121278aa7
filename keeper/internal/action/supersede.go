package action

import (
	"context"
	"strings"

	"github.com/keeper-project/keeper/keeper/journal"
)

// Supersede closes the resumable actions (journal.Action.Resumable) of the
// targets a policy now plans a different action for; planned maps a target
// to the ID of its planned action. With new inputs the old intent will
// never be planned again, so it is final (skipped, rule superseded) rather
// than pending forever. Only actions whose every attempt provably failed to
// land are expired, and a bare intent never had an attempt, so nothing of
// theirs can land any more. An expired sequence whose leading transactions
// landed (rule sequence-partial) is closed with the rule
// superseded-after-partial and its detail kept, so the journal says that
// part of it is on chain and the new plan carries the rest.
func (e *Executor) Supersede(ctx context.Context, resumable []journal.Action, planned map[string]string) {
	for _, old := range resumable {
		id, ok := planned[old.Target]
		if !ok || id == old.ID {
			continue
		}
		log := e.cfg.Logger.With("policy", old.Policy, "action", ShortID(old.ID), "target", old.Target)
		log.Info("Closing an interrupted action superseded by a new plan", "by", ShortID(id), "state", old.State, "rule", old.Rule)
		out := journal.Outcome{State: journal.StateSkipped, Rule: journal.RuleSuperseded, Detail: "superseded by " + id}
		if old.Rule == journal.RuleSequencePartial {
			out.Rule = journal.RuleSupersededPartial
			out.Detail = strings.TrimSuffix(old.Detail, continuesNote) + "; the rest superseded by " + id
		}
		e.finish(ctx, log, fromJournal(old, journal.Attempt{}), out)
	}
}
