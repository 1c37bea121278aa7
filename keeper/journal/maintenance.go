package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// maintenance keeps the journal in working order: the owner lock of an
// SQLite journal (see Own), pruning, backups and the writability probe.
type maintenance struct {
	*store
	// lock is the owner lock file while Own holds it, else nil.
	lock *os.File
}

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
func (j *maintenance) Prune(ctx context.Context, cutoff time.Time) (int, error) {
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

// Backup writes a consistent copy of the journal to dest, a new file, while
// the journal stays in use (SQLite's VACUUM INTO reads one snapshot: a
// daemon writing meanwhile neither waits nor tears the copy). The copy is
// a journal keeper opens, recovers from and continues with.
func (j *maintenance) Backup(ctx context.Context, dest string) error {
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
func (j *maintenance) Writable(ctx context.Context) error {
	err := j.write(ctx, func(tx dbtx) error {
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

// StartLog readies a file journal's write-ahead log for the next durable
// write, with a durable commit that changes nothing (it rewrites the
// schema versions' rows with their own values, as Writable does before it
// rolls back). The first commit after SQLite opens the database, or after
// a checkpoint emptied the log, starts the log: before its own flush it
// writes the log's header and flushes it (at synchronous=FULL), and a log
// file it has just created also flushes its directory. That commit costs
// about three times the next one (≈ 1 ms against ≈ 0.3 ms on this
// project's test machine), and in a process that has just opened an
// existing journal it would be the first action's intent, journaled on the
// action path. Warm starts the log so. On PostgreSQL and in memory it does
// nothing.
func (j *maintenance) StartLog(ctx context.Context) error {
	if j.shared() || j.loc.memory() {
		return nil
	}
	err := j.write(ctx, func(tx dbtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = version`)
		return err
	})
	if err != nil {
		return fmt.Errorf("journal: start the log: %w", err)
	}
	return nil
}

// warmup is the part of the journal that readies it for a process's first
// action (see Warm).
type warmup struct {
	j *Journal
}

// rehearsalKey is the context key under which a rehearsal's transaction
// travels: every write made with such a context runs its statements in that
// transaction (see store.submit), which the rehearsal then rolls back.
type rehearsalKey struct{}

// rehearsalID is the action, signature, transaction and blockhash a
// rehearsal journals and rolls back: no real one is spelled so (an action's
// ID is a SHA-256 digest in hex, the others base58 or base64 of 32 bytes or
// more).
const rehearsalID = "rehearsal"

// Warm readies a file journal for a process's first action: it starts the
// write-ahead log (StartLog), then rehearses an action's path of one
// transaction (Start, RecordBuilt, RecordSigned, RecordSubmitted, a landed
// Settle) in one transaction that it rolls back, so that nothing of it is
// ever written. The rehearsal leaves the path's statements prepared and
// SQLite's code for them resident, which a process that has just started
// would otherwise parse and page in on its first action's path (≈ 1 ms
// each for the intent and the signatures in a `run --once`). keeper calls
// Warm beside the observation of its first run that may act. On PostgreSQL
// and in memory it does nothing.
func (w *warmup) Warm(ctx context.Context) error {
	if w.j.shared() || w.j.loc.memory() {
		return nil
	}
	if err := w.j.StartLog(ctx); err != nil {
		return err
	}
	if err := w.rehearse(ctx); err != nil {
		return fmt.Errorf("journal: rehearse an action: %w", err)
	}
	return nil
}

// rehearse runs an action's path in one transaction and rolls it back,
// then prepares the statements the path used.
func (w *warmup) rehearse(ctx context.Context) error {
	tx, err := w.j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer w.j.stmts.prepare(ctx)
	rctx := context.WithValue(ctx, rehearsalKey{}, dbtx{tx: tx, stmts: &w.j.stmts})
	return errors.Join(w.path(rctx), rollback(tx))
}

// path journals a one-transaction action from its intent to its landing
// with ctx, a rehearsal's context.
func (w *warmup) path(ctx context.Context) error {
	j, id := w.j, rehearsalID
	if _, _, _, err := j.Start(ctx, Intent{ID: id, Policy: id, Kind: id}); err != nil {
		return err
	}
	if err := j.RecordBuilt(ctx, id, 1, Build{Transactions: []string{id}, Mode: ModeRPC}); err != nil {
		return err
	}
	if err := j.RecordSigned(ctx, id, 1, []SignedTx{{Signature: id, Blockhash: id}}); err != nil {
		return err
	}
	if err := j.RecordSubmitted(ctx, id, 1); err != nil {
		return err
	}
	return j.Settle(ctx, id, 1, Outcome{State: StateLanded})
}
