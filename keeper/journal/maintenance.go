package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	err := j.write(ctx, durable, func(tx dbtx) error {
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

// Backup writes a consistent copy of the journal to dest, a new file, while
// the journal stays in use (SQLite's VACUUM INTO reads one snapshot: a
// daemon writing meanwhile neither waits nor tears the copy). The copy is
// a journal keeper opens, recovers from and continues with.
func (j *Journal) Backup(ctx context.Context, dest string) error {
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: backup: %s exists (a backup never overwrites)", dest)
	}
	if _, err := j.db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("journal: backup to %s: %w", dest, err)
	}
	if err := os.Chmod(dest, 0o600); err != nil {
		return fmt.Errorf("journal: backup: %w", err)
	}
	return nil
}

// errProbe ends the probe transaction of Writable; it never leaves the package.
var errProbe = errors.New("probe")

// Writable reports whether the journal can take a write now: it takes the
// database's write lock and makes a change that it then rolls back, so it
// fails when the database is closed, read-only, or locked by another writer
// for longer than the busy timeout. It writes nothing.
func (j *Journal) Writable(ctx context.Context) error {
	err := j.write(ctx, durable, func(tx dbtx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = version`); err != nil {
			return err
		}
		return errProbe
	})
	if errors.Is(err, errProbe) {
		return nil
	}
	return fmt.Errorf("journal: not writable: %w", err)
}
