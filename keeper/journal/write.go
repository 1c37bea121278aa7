package journal

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"
)

// durability is how a write commits.
type durability int

const (
	// durable commits are on disk (fsync'd, or flushed by the PostgreSQL
	// server) when the write returns: the intent before the build, and the
	// signatures before anything is sent.
	durable durability = iota
	// lazy commits are not flushed: a process crash keeps them (the
	// operating system holds the write), a power loss or a database
	// server's crash may drop those written after the last durable commit,
	// which then carries them all to disk, since the log is one sequence.
	// Every record but the intent and the signatures is lazy: what a lost
	// one leaves behind, recovery settles from the chain (see the package
	// documentation).
	lazy
)

// write runs fn in a write transaction and commits it as d says; on any
// error the transaction is rolled back and nothing is written. A shared
// (PostgreSQL) journal checks the leader's fencing token in the same
// transaction first.
func (j *Journal) write(ctx context.Context, d durability, fn func(tx dbtx) error) error {
	if j.loc.memory() {
		d = durable // nothing to flush
	}
	if j.Shared() {
		fn = j.fenced(ctx, fn)
		if d == lazy {
			fn = lazyPostgres(ctx, fn)
		}
	}
	start := time.Now()
	var err error
	if d == lazy && !j.Shared() {
		err = j.writeLazySQLite(ctx, fn)
	} else {
		err = j.inTx(ctx, j.db, fn)
	}
	if err == nil {
		j.committed(Commit{Durable: d == durable, Duration: time.Since(start)})
	}
	return err
}

// beginner is what *sql.DB and *sql.Conn have in common.
type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// inTx runs fn in a transaction begun on b and commits it, or rolls it back
// when fn fails.
func (j *Journal) inTx(ctx context.Context, b beginner, fn func(tx dbtx) error) error {
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	t := dbtx{tx: tx, stmts: j.stmts, dialect: j.loc.dialect()}
	err = fn(t)
	if err == nil && j.beforeCommit != nil {
		err = j.beforeCommit(ctx, t)
	}
	if err != nil {
		return abort(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// writeLazySQLite commits fn's transaction at synchronous=NORMAL, which in
// WAL mode does not fsync the commit, and sets the connection back to FULL
// afterwards; a connection that cannot be set back is discarded, so no
// later write commits lazily by mistake.
func (j *Journal) writeLazySQLite(ctx context.Context, fn func(tx dbtx) error) error {
	conn, err := j.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connection: %w", err)
	}
	defer conn.Close()
	bg := context.WithoutCancel(ctx)
	if _, err := conn.ExecContext(bg, "PRAGMA synchronous = NORMAL"); err != nil {
		return fmt.Errorf("lazy commit: %w", err)
	}
	defer func() {
		if _, err := conn.ExecContext(bg, "PRAGMA synchronous = FULL"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return j.inTx(ctx, conn, fn)
}

// read runs fn in a read-only transaction, so it sees one snapshot.
func (j *Journal) read(ctx context.Context, fn func(tx dbtx) error) error {
	tx, err := j.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read transaction: %w", err)
	}
	if err := fn(dbtx{tx: tx, stmts: j.stmts, dialect: j.loc.dialect()}); err != nil {
		return abort(tx, err)
	}
	return rollback(tx)
}

// readAll runs query with args in a read transaction and returns its rows.
func readAll[T any](ctx context.Context, j *Journal, query func(context.Context, querier, string, ...any) ([]T, error), q string, args ...any) ([]T, error) {
	var out []T
	err := j.read(ctx, func(tx dbtx) error {
		var err error
		out, err = query(ctx, tx, q, args...)
		return err
	})
	return out, err
}
