package journal

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// durability is how a write step commits.
type durability int

const (
	// durable commits are fsync'd before the method returns.
	durable durability = iota
	// lazy commits are not fsync'd: a process crash keeps them (the
	// operating system holds the write), a power loss may drop them, and
	// the next durable commit carries them to disk (see writeLazy).
	lazy
	// lazyWhenSigned is lazy when the action's open attempt has its
	// signatures journaled (it is signed or submitted) and durable
	// otherwise.
	lazyWhenSigned
)

// errNeedsDurable stops a lazyWhenSigned step whose attempt holds no
// signatures, so that it runs again as a durable one.
var errNeedsDurable = errors.New("journal: the record must be durable")

// durability returns how Settle commits out. An outcome the chain decides
// and recovery re-derives from it, landed or expired because every
// blockhash expired unseen, commits lazily once the attempt's signatures
// are journaled: if a power loss drops the record, the attempt is open
// again with those signatures, and recovery asks the chain about them
// before the first tick and settles it the same way, which is what it does
// when the crash comes just before Settle. Everything else is durable:
// refusals, skips and expiries before signing are decisions the chain
// cannot give back, and a failure, even one the chain shows, recovery may
// judge otherwise (a failed transaction midway through an RPC sequence is
// a partial expiry to it). Nothing signed leaves the process after a
// lazy outcome before a durable commit carries it (every send follows a
// durable RecordSigned); a build for a new attempt may, as after any lazy
// NewAttempt, and a power loss then makes recovery number that attempt
// again, so the market sees the same idempotency key and replays it. What
// a power loss can repeat is the report of a lost outcome (metrics, the
// log line, a notification), when recovery settles it again.
func (out Outcome) durability() durability {
	switch {
	case out.State == StateLanded:
		return lazyWhenSigned
	case out.State == StateExpired && out.Rule == RuleBlockhashExpired:
		return lazyWhenSigned
	}
	return durable
}

// signed reports whether the action's open attempt has its signatures
// journaled: only RecordSigned moves an action to signed, and submitted
// follows signed.
func (h head) signed() bool {
	return h.state == StateSigned || h.state == StateSubmitted
}

// groupWrite is one write transaction's work waiting to commit with the
// others that arrive with it: on a file journal every write goes through
// the store's batch queue, and the writes that queue while one commits
// commit together in one transaction, with one fsync when any of them must
// be durable. Several actions in flight at once (one per policy running,
// up to policy_concurrency) then share the flushes each would otherwise
// wait for in turn. Each write's statements run in a savepoint of their
// own, so a write that fails rolls back alone; each caller returns after
// the commit that carries its write, at the strongest durability any
// write of the group asked for: a durable write is on disk when it
// returns, as it would be alone, and a lazy one grouped with a durable one
// is made durable too. A write that finds no other committing (one action
// at a time, the usual case) commits alone, without a savepoint. A write
// whose context ends while its statements run can make SQLite roll the
// whole transaction back (an interrupted change does): every write of the
// group then returns an error, and none is journaled.
type groupWrite struct {
	ctx     context.Context
	fn      func(tx dbtx) error
	durable bool
}

// commitGroup runs the writes of group in one transaction on the
// journal's connection, committed with synchronous=FULL when any of them is
// durable and NORMAL otherwise, and returns each write's result. The
// connection goes back to the pool at FULL, or is discarded when that
// fails, so no later write commits lazily by mistake; then the statements
// the writes used are prepared (which needs the connection back).
func (j *store) commitGroup(group []*groupWrite) []error {
	defer j.stmts.prepare(context.Background())
	return j.groupOnConn(group)
}

// groupOnConn is commitGroup on the connection it holds.
func (j *store) groupOnConn(group []*groupWrite) []error {
	ctx := context.Background() // the writes' statements run under their callers' contexts
	errs := make([]error, len(group))
	fail := func(err error) []error {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return errs
	}
	conn, err := j.db.Conn(ctx)
	if err != nil {
		return fail(fmt.Errorf("connection: %w", err))
	}
	defer conn.Close()
	if !anyDurable(group) {
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
			return fail(fmt.Errorf("lazy commit: %w", err))
		}
		defer func() {
			if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fail(fmt.Errorf("begin transaction: %w", err))
	}
	if len(group) == 1 {
		errs[0] = j.commit(group[0].ctx, tx, group[0].fn, group[0].durable)
		return errs
	}
	start := time.Now()
	t := dbtx{tx: tx, stmts: &j.stmts}
	for i, w := range group {
		errs[i] = inSavepoint(t, w, j.beforeCommit)
		if errors.Is(errs[i], errRolledBack) {
			return fail(abort(tx, errs[i]))
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	j.committed.report(Commit{Writes: countNil(errs), Durable: anyDurable(group), Duration: time.Since(start)})
	return errs
}

// countNil counts the writes of a group that succeeded.
func countNil(errs []error) int {
	n := 0
	for _, err := range errs {
		if err == nil {
			n++
		}
	}
	return n
}

// errRolledBack marks a savepoint that could not be rolled back or
// released: the whole group's transaction is then abandoned.
var errRolledBack = errors.New("journal: savepoint")

// inSavepoint runs w's statements, then before (when set), in a savepoint
// of t's transaction and rolls them back alone when they fail (or w's
// context ended before they started). An error wrapping errRolledBack means
// the savepoint itself failed and the transaction must be abandoned.
func inSavepoint(t dbtx, w *groupWrite, before func(context.Context, dbtx) error) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	ctx := context.Background()
	if _, err := t.ExecContext(ctx, "SAVEPOINT w"); err != nil {
		return fmt.Errorf("%w: %w", errRolledBack, err)
	}
	err := w.fn(t)
	if err == nil && before != nil {
		err = before(w.ctx, t)
	}
	if err != nil {
		if _, rerr := t.ExecContext(ctx, "ROLLBACK TO w"); rerr != nil {
			return fmt.Errorf("%w: %w", errRolledBack, errors.Join(err, rerr))
		}
	}
	if _, rerr := t.ExecContext(ctx, "RELEASE w"); rerr != nil {
		return fmt.Errorf("%w: %w", errRolledBack, errors.Join(err, rerr))
	}
	return err
}

// anyDurable reports whether a write of group must be durable.
func anyDurable(group []*groupWrite) bool {
	for _, w := range group {
		if w.durable {
			return true
		}
	}
	return false
}
