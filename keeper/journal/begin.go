package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// insertAction adds an action unless its ID exists; ON CONFLICT DO NOTHING
// is the dedup, safe under concurrent writers.
var insertAction = stmt(`INSERT INTO actions
	(id, policy, kind, target, inputs, reason, dry_run, mint, amount, state, attempts, rule, detail,
	 created_at, updated_at, settled_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '', '', ?, ?, NULL)
	ON CONFLICT (id) DO NOTHING`)

// Begin journals the intent in state planned and returns it with true. If
// an action with the same ID exists, Begin writes nothing and returns the
// existing action with false. When Begin returns without error the action is
// on disk.
func (j *Journal) Begin(ctx context.Context, in Intent) (act Action, created bool, err error) {
	defer wrap(&err, "begin %q", in.ID)
	act, _, created, err = j.intent(ctx, in, false)
	return act, created, err
}

// Start is Begin followed by the action's first attempt, in one durable
// commit: it journals the intent in state planned with attempt 1 open, and
// returns both with true. If an action with the same ID exists, Start
// writes nothing and returns the existing action with false and no
// attempt (resume it, or start its next attempt with NewAttempt). It saves
// the action path the separate commit of its first NewAttempt.
func (j *Journal) Start(ctx context.Context, in Intent) (act Action, att Attempt, created bool, err error) {
	defer wrap(&err, "start %q", in.ID)
	return j.intent(ctx, in, true)
}

// intent journals in as a planned action, with its first attempt open when
// first is set, in one durable commit, and returns what it journaled with
// true; an action already journaled under in's ID is returned as it is,
// with false and no attempt.
func (j *Journal) intent(ctx context.Context, in Intent, first bool) (Action, Attempt, bool, error) {
	if err := in.validate(); err != nil {
		return Action{}, Attempt{}, false, err
	}
	var (
		act     Action
		att     Attempt
		created bool
	)
	err := j.write(ctx, durable, func(tx dbtx) error {
		var err error
		now := j.stamp()
		if created, err = insertIntent(ctx, tx, in, now); err != nil {
			return err
		}
		if !created {
			act, err = getAction(ctx, tx, in.ID)
			return err
		}
		act = newAction(in, now)
		if !first {
			return nil
		}
		att, err = insertAttempt(ctx, tx, head{id: in.ID, state: StatePlanned}, now)
		act.AttemptCount, act.Attempts = 1, []Attempt{att}
		return err
	})
	if err != nil {
		return Action{}, Attempt{}, false, err
	}
	return act, att, created, nil
}

// validate checks the fields Begin requires.
func (in Intent) validate() error {
	switch {
	case in.ID == "":
		return invalidf("intent has no ID")
	case in.Policy == "":
		return invalidf("intent has no policy")
	case in.Kind == "":
		return invalidf("intent has no kind")
	case len(in.Inputs) > 0 && !json.Valid(in.Inputs):
		return invalidf("intent inputs are not valid JSON")
	case in.Amount > 0 && in.Mint == "":
		return invalidf("intent has an amount but no mint")
	}
	return nil
}

// newAction is the action Begin journals for in at time now, as getAction
// reads it back (its inputs a copy of the caller's).
func newAction(in Intent, now int64) Action {
	in.Inputs = slices.Clone(in.Inputs)
	if len(in.Inputs) == 0 {
		in.Inputs = json.RawMessage("null")
	}
	at := fromNanos(now)
	return Action{Intent: in, State: StatePlanned, CreatedAt: at, UpdatedAt: at}
}

// insertIntent inserts in as a planned action at time now and reports
// whether it was new.
func insertIntent(ctx context.Context, tx dbtx, in Intent, now int64) (bool, error) {
	inputs := string(in.Inputs)
	if inputs == "" {
		inputs = "null"
	}
	n, err := rowsAffected(tx.ExecContext(ctx, insertAction,
		in.ID, in.Policy, in.Kind, in.Target, inputs, in.Reason, boolInt(in.DryRun),
		in.Mint, strconv.FormatUint(in.Amount, 10), string(StatePlanned), now, now))
	if err != nil {
		return false, fmt.Errorf("insert action: %w", err)
	}
	return n == 1, nil
}

// boolInt stores a bool as 0 or 1.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
