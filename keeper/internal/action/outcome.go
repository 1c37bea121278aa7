package action

import "github.com/keeper-project/keeper/keeper/journal"

// Outcome is what became of one plan on the action path.
type Outcome string

// The outcomes of the action path.
const (
	OutcomeLanded  Outcome = "landed"
	OutcomeFailed  Outcome = "failed"
	OutcomeRefused Outcome = "refused"
	// OutcomeRetry: nothing landed; a later run may try again.
	OutcomeRetry Outcome = "retry"
	// OutcomeExpired: an attempt provably expired without landing, so the
	// next attempt may be built at once.
	OutcomeExpired Outcome = "expired"
	// OutcomePending: sent, not yet settled (the run ended first).
	OutcomePending Outcome = "pending"
	// OutcomeSettled: journaled as final by an earlier run.
	OutcomeSettled Outcome = "settled"
	// OutcomeAlreadyDone: the chain shows the action's work done already
	// (a withdrawal request claimed before keeper's claim was built, every
	// transaction of a sequence landed over earlier attempts); it is
	// journaled as final with the reason.
	OutcomeAlreadyDone Outcome = "already_done"
	// OutcomeBusy: another action held the plan's target, or changed it
	// after the run read the facts it decided from: nothing was journaled
	// or sent, and the policy's next run decides afresh from new reads. Two
	// policies that select the same loan therefore never both repay it
	// from the same reading.
	OutcomeBusy   Outcome = "busy"
	OutcomeDryRun Outcome = "dry_run"
	// OutcomeSuperseded: a newer plan for the target replaced a journaled
	// action that had not landed (see Supersede).
	OutcomeSuperseded Outcome = "superseded"
	OutcomePaused     Outcome = "paused"
	// OutcomeNotTaken: the journal could not record the intent.
	OutcomeNotTaken Outcome = "not_taken"
	// OutcomeAlert counts an alert fired in a run summary; it never comes
	// from the action path.
	OutcomeAlert Outcome = "alert"
	// OutcomeStandby counts, in a run summary, an action a standby keeper
	// planned and left to the leader; it never comes from the action path.
	OutcomeStandby Outcome = "standby"
	// OutcomeProposed: the action's Squads proposal landed; nothing is
	// changed until the members approve it and it is executed, which
	// counts the action landed (or rejected, cancelled, superseded).
	OutcomeProposed Outcome = "proposed"
	// OutcomeRejected and OutcomeCancelled: the members rejected the
	// action's proposal, or cancelled it once approved; nothing executed.
	OutcomeRejected  Outcome = "rejected"
	OutcomeCancelled Outcome = "cancelled"
)

// outcomeOf is the outcome of a journal settlement: its state, and for the
// states that end more than one way, its rule (a landing is a proposal's
// when its rule says so).
func outcomeOf(state journal.State, rule journal.Rule) Outcome {
	switch state {
	case journal.StateLanded:
		if rule == journal.ProposalRule(journal.ProposalProposed) {
			return OutcomeProposed
		}
		return OutcomeLanded
	case journal.StateFailed:
		return OutcomeFailed
	case journal.StateRefused:
		return OutcomeRefused
	case journal.StateExpired:
		if rule == journal.RuleBlockhashExpired {
			return OutcomeExpired
		}
		return OutcomeRetry
	case journal.StateSkipped:
		return skippedOutcome(rule)
	}
	return OutcomePending
}

// skippedOutcome is the outcome of an action skipped under rule. Every
// skip rule has its own: a rule added without one is a pending outcome
// (which TestEverySkipRuleHasItsOutcome catches), never counted as a dry
// run it was not.
func skippedOutcome(rule journal.Rule) Outcome {
	switch rule {
	case journal.RuleAlreadyClaimed, journal.RuleSequenceLanded:
		return OutcomeAlreadyDone
	case journal.RuleSuperseded, journal.RuleSupersededPartial:
		return OutcomeSuperseded
	case journal.RuleDryRun:
		return OutcomeDryRun
	}
	return OutcomePending
}

// mayHaveChanged reports outcomes after which the target may differ from
// what was read before: something landed, or was sent and may still land.
func mayHaveChanged(o Outcome) bool {
	switch o {
	case OutcomeLanded, OutcomeFailed, OutcomePending, OutcomeRetry, OutcomeExpired, OutcomeAlreadyDone, OutcomeSuperseded:
		return true
	}
	return false
}
