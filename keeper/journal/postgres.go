package journal

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgConnectTimeout bounds a connection attempt when the URL sets none.
const pgConnectTimeout = 5 * time.Second

// pgIdleInTransaction is how long the server lets a journal session sit
// in an open transaction without a statement before it ends the session.
// The journal's transactions run their statements back to back, so only a
// process that stopped mid-transaction (frozen, or its host paused) waits
// that long: its session then dies, its transaction rolls back, and the
// lease row it held for the fencing check is free for a standby's
// campaign well within the lease. Without it a frozen leader would block
// every takeover for as long as it stays frozen.
const pgIdleInTransaction = 2 * time.Second

// openPostgres returns a handle on the PostgreSQL database at loc. A lock
// held by another session fails a statement after busy (as SQLite's busy
// timeout does) instead of waiting for ever, and the sessions name
// themselves "keeper" in pg_stat_activity.
func openPostgres(loc location, busy time.Duration) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(loc.server)
	if err != nil {
		return nil, invalidf("not a PostgreSQL connection URL")
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	if _, set := cfg.RuntimeParams["application_name"]; !set {
		cfg.RuntimeParams["application_name"] = "keeper"
	}
	cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(busy.Milliseconds(), 10)
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(pgIdleInTransaction.Milliseconds(), 10)
	return stdlib.OpenDB(*cfg), nil
}

// checkPostgresDurability verifies that a commit the server acknowledges
// is on its disk: fsync on, and synchronous_commit not off for the
// journal's sessions (lazy records turn it off for their own transaction
// only).
func checkPostgresDurability(ctx context.Context, db *sql.DB) error {
	var fsync, syncCommit string
	err := db.QueryRowContext(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &syncCommit)
	if err != nil {
		return fmt.Errorf("read server settings: %w", err)
	}
	if fsync != "on" || syncCommit == "off" {
		return fmt.Errorf("server settings fsync=%s synchronous_commit=%s, want fsync on and synchronous_commit not off", fsync, syncCommit)
	}
	return nil
}

// lazyPostgres is fn in a transaction whose commit does not wait for the
// server's WAL flush. PostgreSQL's WAL is one sequence, so the next durable
// commit flushes it too, the guarantee writeLazy gives on SQLite.
func lazyPostgres(ctx context.Context, fn func(tx dbtx) error) func(tx dbtx) error {
	return func(tx dbtx) error {
		if _, err := tx.tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return fmt.Errorf("lazy commit: %w", err)
		}
		return fn(tx)
	}
}

// migrationLock is the key of the PostgreSQL advisory lock under which a
// keeper migrates the schema, so that keepers starting together migrate it
// once ("keeper" in ASCII).
const migrationLock = 0x6b6565706572

// lockMigrations takes the migration lock on conn, for PostgreSQL; the
// returned function releases it.
func lockMigrations(ctx context.Context, conn *sql.Conn) (func(), error) {
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	return func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock)
	}, nil
}
