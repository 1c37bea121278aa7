package policies

import "time"

// History is what the journal knows of one policy's past actions, as a
// plain snapshot the runtime fills before each evaluation, so Evaluate
// needs no journal.
type History struct {
	// Targets holds, per target key, the policy's last action on it.
	Targets map[string]TargetHistory
	// SpentToday is the token outflow of the policy's actions this UTC day,
	// per mint, in smallest units.
	SpentToday map[string]uint64
	// FeesToday is the lamports the policy spent on fees and tips this UTC day.
	FeesToday uint64
	// ActionsThisRun counts actions already planned in this run.
	ActionsThisRun int
}

// TargetHistory is the policy's last action on one target.
type TargetHistory struct {
	// LastAction is when the last action on the target was planned; zero
	// when none.
	LastAction time.Time
	// InFlight reports an action on the target that is not settled yet.
	InFlight bool
}

// State is what Evaluate remembers of one policy across runs: since when
// each target's condition has held, for `for`. The runtime keeps one State
// per policy (the zero value is ready) and passes it to every evaluation;
// Evaluate updates it in place. A stale snapshot leaves it untouched.
type State struct {
	// PendingSince maps a target key to the first evaluation time of the
	// current unbroken run of evaluations in which its condition held.
	PendingSince map[string]time.Time
}
