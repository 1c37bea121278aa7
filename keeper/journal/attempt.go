package journal

import (
	"context"
	"fmt"
)

// NewAttempt starts the next attempt of action id and returns it with its
// number and idempotency key. It is allowed only when the action is planned
// with no attempt yet, or its last attempt expired; an open attempt must be
// settled (or continued) instead.
func (j *Journal) NewAttempt(ctx context.Context, id string) (att Attempt, err error) {
	defer wrap(&err, "new attempt of %q", id)
	err = j.write(ctx, lazy, func(tx dbtx) error {
		h, err := loadHead(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := h.requireNewAttempt(); err != nil {
			return err
		}
		att, err = insertAttempt(ctx, tx, h, j.stamp())
		return err
	})
	return att, err
}

// requireNewAttempt checks that a new attempt may start.
func (h head) requireNewAttempt() error {
	switch {
	case h.openAttempt() != 0:
		return fmt.Errorf("%w: action %q already has open attempt %d", ErrAttemptNotOpen, h.id, h.attempts)
	case h.state == StatePlanned && h.attempts == 0, h.state == StateExpired:
		return nil
	default:
		return &TransitionError{ID: h.id, From: h.state, To: StateBuilt}
	}
}

// The statements of insertAttempt.
var (
	bumpAttempts = stmt(`UPDATE actions SET attempts = ?, updated_at = ?
		WHERE id = ? AND state = ? AND attempts = ?`)
	insertAttemptRow = stmt(`INSERT INTO attempts (action_id, attempt, idempotency_key, mode, tip_lamports,
		fee_lamports, outcome, rule, detail, created_at) VALUES (?, ?, ?, '', 0, 0, '', '', '', ?)`)
)

// insertAttempt adds attempt h.attempts+1 at time at and bumps the
// action's count, guarded against a concurrent change.
func insertAttempt(ctx context.Context, tx dbtx, h head, at int64) (Attempt, error) {
	n := h.attempts + 1
	res, err := tx.ExecContext(ctx, bumpAttempts, n, at, h.id, string(h.state), h.attempts)
	if err != nil {
		return Attempt{}, fmt.Errorf("update action: %w", err)
	}
	if err := expectOne(res, h.id); err != nil {
		return Attempt{}, err
	}
	key := idempotencyKey(h.id, n)
	_, err = tx.ExecContext(ctx, insertAttemptRow, h.id, n, key, at)
	if err != nil {
		return Attempt{}, fmt.Errorf("insert attempt %d: %w", n, err)
	}
	return Attempt{ActionID: h.id, Number: n, IdempotencyKey: key, CreatedAt: fromNanos(at)}, nil
}
