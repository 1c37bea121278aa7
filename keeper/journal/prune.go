package journal

import (
	"context"
	"fmt"
	"time"
)

// finalStates are the states Prune may delete: nothing of such an action can land any more, and no
// policy will carry it on. Expired actions are not among them: their policy may resume them.
var finalStates = []State{StateLanded, StateFailed, StateRefused, StateSkipped}

// pruneTables are the tables an action's rows live in, children first.
var pruneTables = []string{"tips", "signatures", "attempt_transactions", "attempts"}

// Prune deletes the actions that reached a final state (landed, failed, refused, skipped) before
// cutoff, with their attempts, transactions, signatures and tips, and the alert incidents resolved
// before cutoff, in one transaction, and returns how many actions it deleted. An action that is not final is never deleted, however old: it may
// still land, or be resumed. Limits read the journal for at most a day and a cooldown, so a
// retention longer than both changes no decision.
func (j *Journal) Prune(ctx context.Context, cutoff time.Time) (int, error) {
	if cutoff.IsZero() {
		return 0, nil
	}
	var n int
	err := j.write(ctx, func(tx dbtx) error {
		sel := `SELECT id FROM actions WHERE settled_at IS NOT NULL AND settled_at < ? AND state IN (?, ?, ?, ?)`
		args := []any{cutoff.UnixNano()}
		for _, s := range finalStates {
			args = append(args, string(s))
		}
		for _, t := range pruneTables {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE action_id IN (`+sel+`)`, args...); err != nil {
				return fmt.Errorf("prune %s: %w", t, err)
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM actions WHERE id IN (`+sel+`)`, args...)
		if err != nil {
			return fmt.Errorf("prune actions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM incidents WHERE resolved_at IS NOT NULL AND resolved_at < ?`,
			cutoff.UnixNano()); err != nil {
			return fmt.Errorf("prune incidents: %w", err)
		}
		rows, err := res.RowsAffected()
		n = int(rows)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("journal: prune: %w", err)
	}
	return n, nil
}
