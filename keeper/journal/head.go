package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// head is the part of an action a write step checks before it changes
// anything.
type head struct {
	id       string
	state    State
	attempts int
	// lastOutcome is the outcome of the newest attempt; empty when it is
	// open or there is none.
	lastOutcome State
}

// selectHead reads an action's head (see loadHead).
var selectHead = stmt(`SELECT a.state, a.attempts, t.outcome FROM actions a
	LEFT JOIN attempts t ON t.action_id = a.id AND t.attempt = a.attempts WHERE a.id = ?`)

// loadHead reads the state and attempt bookkeeping of action id, in one
// query: the action's row and its newest attempt's outcome.
func loadHead(ctx context.Context, tx dbtx, id string) (head, error) {
	h := head{id: id}
	var (
		state   string
		outcome sql.NullString
	)
	err := tx.QueryRowContext(ctx, selectHead, id).Scan(&state, &h.attempts, &outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return head{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return head{}, fmt.Errorf("read action: %w", err)
	}
	if h.attempts > 0 && !outcome.Valid {
		return head{}, fmt.Errorf("read attempt %d: %w", h.attempts, sql.ErrNoRows)
	}
	h.state, h.lastOutcome = State(state), State(outcome.String)
	return h, nil
}

// openAttempt returns the number of the open attempt, 0 when none is open.
func (h head) openAttempt() int {
	if h.attempts > 0 && h.lastOutcome == "" {
		return h.attempts
	}
	return 0
}

// requireOpen checks that attempt n is the open attempt.
func (h head) requireOpen(n int) error {
	open := h.openAttempt()
	switch {
	case open == 0:
		return fmt.Errorf("%w: action %q has no open attempt (asked for attempt %d)", ErrAttemptNotOpen, h.id, n)
	case n != open:
		return fmt.Errorf("%w: action %q: attempt %d is not the open attempt %d", ErrAttemptNotOpen, h.id, n, open)
	}
	return nil
}

// requireTransition checks that the action may move to state to.
func (h head) requireTransition(to State) error {
	if !h.state.CanBecome(to) {
		return &TransitionError{ID: h.id, From: h.state, To: to}
	}
	return nil
}

// updateState moves an action, guarded by its state (see moveTo).
var updateState = stmt(`UPDATE actions SET state = ?, rule = ?, detail = ?, updated_at = ?, settled_at = ?
	WHERE id = ? AND state = ? AND attempts = ?`)

// moveTo sets the action's state and explanation, guarded by its current
// state so a concurrent change is detected rather than overwritten. A final
// state also sets settled_at.
func (h head) moveTo(ctx context.Context, tx dbtx, to State, rule Rule, detail string, now int64) error {
	var settled sql.NullInt64
	if to.Final() {
		settled = sql.NullInt64{Int64: now, Valid: true}
	}
	res, err := tx.ExecContext(ctx, updateState, string(to), string(rule), detail, now, settled, h.id, string(h.state), h.attempts)
	if err != nil {
		return fmt.Errorf("update action: %w", err)
	}
	return expectOne(res, h.id)
}

// expectOne checks that a guarded update changed exactly one row.
func expectOne(res sql.Result, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("update action: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("%w: %q", ErrConflict, id)
	}
	return nil
}
