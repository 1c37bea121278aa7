package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrNotLeader means a write of a shared journal was refused because this
// process does not hold the leader's lease: it never campaigned (Fence was
// not called), or another keeper took the lease since (the error is then a
// *DeposedError). Nothing was written.
var ErrNotLeader = errors.New("journal: this keeper is not the leader")

// ErrNotShared means the journal is an SQLite file, which one process owns
// (see Own): leadership is for a journal on PostgreSQL.
var ErrNotShared = errors.New("journal: leadership needs a shared (PostgreSQL) journal")

// DeposedError reports a write refused because the lease moved on.
type DeposedError struct {
	// Token is the fencing token this process wrote with.
	Token int64
	// Current is the lease's token now.
	Current int64
}

// Error says which terms met.
func (e *DeposedError) Error() string {
	return fmt.Sprintf("journal: deposed: this keeper led term %d, the lease is at term %d", e.Token, e.Current)
}

// Unwrap returns ErrNotLeader.
func (e *DeposedError) Unwrap() error { return ErrNotLeader }

// Lease is a term of leadership over a shared journal.
type Lease struct {
	// Token is the term's fencing token: it grows by one at every change
	// of leader.
	Token int64
	// Holder says which process holds the term (pid, host, start).
	Holder string
	// Remaining is how long the lease has left by the database's clock;
	// zero or less means it has lapsed and the next campaign takes it.
	Remaining time.Duration
}

// leaseName is the row of the leader_lease table keepers campaign for.
const leaseName = "keeper"

// dbMillis is the database server's clock in unix milliseconds: a lease's
// expiry is measured by the one clock every keeper sees.
const dbMillis = `(extract(epoch from clock_timestamp()) * 1000)::bigint`

// Shared reports whether several keepers may open this journal at once
// (PostgreSQL), one of them leading (Campaign); an SQLite journal has one
// owner (Own).
func (j *Journal) Shared() bool { return j.loc.dialect() == postgresDialect }

// Campaign takes the lease for ttl when it is free or has lapsed, for a
// new term whose fencing token it returns with true; when another process
// holds it, Campaign returns that holder's lease and false. Winning does not
// fence the journal's writes: call Fence with the token once the new
// leader is ready to write.
func (j *Journal) Campaign(ctx context.Context, holder string, ttl time.Duration) (Lease, bool, error) {
	conn, err := j.leaseDB()
	if err != nil {
		return Lease{}, false, err
	}
	var token int64
	err = conn.QueryRowContext(ctx, `INSERT INTO leader_lease AS l (name, token, holder, acquired_at, expires_at)
		VALUES ($1, 1, $2, `+dbMillis+`, `+dbMillis+` + $3)
		ON CONFLICT (name) DO UPDATE SET token = l.token + 1, holder = EXCLUDED.holder,
			acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at
		WHERE l.expires_at <= `+dbMillis+`
		RETURNING token`, leaseName, holder, ttl.Milliseconds()).Scan(&token)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		l, err := readLease(ctx, conn)
		return l, false, err
	case err != nil:
		return Lease{}, false, fmt.Errorf("journal: campaign: %w", err)
	}
	return Lease{Token: token, Holder: holder, Remaining: ttl}, true, nil
}

// Renew extends the lease of term token by ttl from now and reports
// whether the term still holds it (false: another keeper took it).
func (j *Journal) Renew(ctx context.Context, token int64, ttl time.Duration) (bool, error) {
	conn, err := j.leaseDB()
	if err != nil {
		return false, err
	}
	n, err := rowsAffected(conn.ExecContext(ctx, `UPDATE leader_lease SET expires_at = `+dbMillis+` + $3
		WHERE name = $1 AND token = $2`, leaseName, token, ttl.Milliseconds()))
	if err != nil {
		return false, fmt.Errorf("journal: renew lease: %w", err)
	}
	return n == 1, nil
}

// Resign ends term token at once, so a standby's next campaign takes the
// lease without waiting for it to lapse. Resigning a term already lost
// does nothing.
func (j *Journal) Resign(ctx context.Context, token int64) error {
	conn, err := j.leaseDB()
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `UPDATE leader_lease SET expires_at = 0 WHERE name = $1 AND token = $2`,
		leaseName, token); err != nil {
		return fmt.Errorf("journal: resign: %w", err)
	}
	return nil
}

// Probe connects to the shared (PostgreSQL) journal at dsn and changes
// nothing: it checks that the server commits durably and returns the
// current lease, zero when nobody has led yet or no keeper has created the
// schema. For `keeper check --online`.
func Probe(ctx context.Context, dsn string) (Lease, error) {
	loc, err := parseDSN(dsn)
	if err != nil {
		return Lease{}, err
	}
	if loc.dialect() != postgresDialect {
		return Lease{}, ErrNotShared
	}
	db, err := openDB(loc, Options{}.withDefaults())
	if err != nil {
		return Lease{}, fmt.Errorf("journal: %s: %w", loc.name, err)
	}
	defer db.Close()
	if err := checkPostgresDurability(ctx, db); err != nil {
		return Lease{}, fmt.Errorf("journal: %s: %w", loc.name, err)
	}
	var table sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT to_regclass('leader_lease')::text").Scan(&table); err != nil {
		return Lease{}, fmt.Errorf("journal: %s: %w", loc.name, err)
	}
	if !table.Valid {
		return Lease{}, nil
	}
	return readLease(ctx, db)
}

// readLease reads the lease row; a zero Lease when nobody has ever led.
func readLease(ctx context.Context, conn *sql.DB) (Lease, error) {
	var l Lease
	var ms int64
	err := conn.QueryRowContext(ctx, `SELECT token, holder, expires_at - `+dbMillis+` FROM leader_lease WHERE name = $1`,
		leaseName).Scan(&l.Token, &l.Holder, &ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Lease{}, nil
	case err != nil:
		return Lease{}, fmt.Errorf("journal: read lease: %w", err)
	}
	l.Remaining = time.Duration(ms) * time.Millisecond
	return l, nil
}

// Fence makes every later write check, inside its own transaction, that
// the lease is still at term token, and refuse with a *DeposedError when it
// is not: a keeper deposed while it was paused or cut off cannot record an
// intent or a signature, so it cannot send either. A campaign that would
// move the lease waits for a fenced write in progress to commit. Fence(0)
// refuses every write (ErrNotLeader), as before the first Fence.
func (j *Journal) Fence(token int64) { j.fence.Store(token) }

// fenced returns fn preceded by the fencing check of a shared journal.
func (j *Journal) fenced(ctx context.Context, fn func(tx dbtx) error) func(tx dbtx) error {
	return func(tx dbtx) error {
		want := j.fence.Load()
		if want == 0 {
			return ErrNotLeader
		}
		var token int64
		err := tx.QueryRowContext(ctx, `SELECT token FROM leader_lease WHERE name = ? FOR SHARE`, leaseName).Scan(&token)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return &DeposedError{Token: want}
		case err != nil:
			return fmt.Errorf("fencing check: %w", err)
		case token != want:
			return &DeposedError{Token: want, Current: token}
		}
		return fn(tx)
	}
}

// leaseDB returns the lease's handle, or ErrNotShared for an SQLite
// journal.
func (j *Journal) leaseDB() (*sql.DB, error) {
	if j.lease == nil {
		return nil, ErrNotShared
	}
	return j.lease, nil
}
