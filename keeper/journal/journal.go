package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// DefaultBusyTimeout is how long a write waits for another process holding
// the database lock when Options.BusyTimeout is zero.
const DefaultBusyTimeout = 5 * time.Second

// Options configure Open. The zero value is usable.
type Options struct {
	// Now returns the current time; defaults to time.Now. Every stored
	// time comes from it.
	Now func() time.Time
	// BusyTimeout bounds the wait for a database lock held by another
	// process; defaults to DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Logger receives migration notices; defaults to discarding.
	Logger *slog.Logger
	// Committed, when set, is told of every write transaction the journal
	// commits (not of those it rolls back), on the goroutine that
	// committed it: it must return quickly and not call the journal.
	Committed func(Commit)
}

// Commit describes one write transaction the journal committed.
type Commit struct {
	// Durable reports whether the commit was on disk (fsync'd, or on
	// PostgreSQL waited for the server's flush) when it returned.
	Durable bool
	// Duration is the time from the transaction's start to the end of its
	// commit, the flush included.
	Duration time.Duration
}

// Journal is the durable action journal. It is safe for concurrent use.
//
// Its methods are what keeper's runtime asks of it: the action log (an
// action's intent, attempts, builds, signatures, sends, tips and outcome),
// its history (Get, Pending, List), alert incidents, trigger firings,
// leadership over a shared journal, and upkeep (the owner lock, pruning,
// backups, the writability probe).
type Journal struct {
	// db is the database handle. It holds one connection, so the journal's
	// own statements never wait on each other's locks.
	db *sql.DB
	// now is the clock; always non-nil.
	now func() time.Time
	// log is the logger; always non-nil.
	log *slog.Logger
	// loc is where the database lives.
	loc location
	// stmts are the action path's statements, prepared at Open.
	stmts statements
	// fence is the leader's fencing token every write of a shared
	// (PostgreSQL) journal checks; 0 until Fence sets it.
	fence atomic.Int64
	// lease is the handle leadership is campaigned and renewed on, one
	// connection beside the journal's, so that renewing never waits behind
	// the journal's statements; nil for SQLite. It connects on first use.
	lease *sql.DB
	// lock is the owner lock file while Own holds it, else nil.
	lock *os.File
	// beforeCommit, when set (by tests), runs in every write transaction
	// after its statements, just before it commits.
	beforeCommit func(ctx context.Context, tx dbtx) error
	// committed is Options.Committed; always non-nil.
	committed func(Commit)
}

// Open opens (creating if needed) the journal at dsn, "sqlite:PATH",
// "sqlite::memory:" or a PostgreSQL URL ("postgres://USER@HOST/DATABASE",
// the database must exist), migrates its schema to the newest version
// this binary knows, and prepares the action path's statements. A relative
// PATH is relative to the working directory.
func Open(ctx context.Context, dsn string, opts Options) (*Journal, error) {
	loc, err := parseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("journal: open: %w", err)
	}
	opts = opts.withDefaults()
	db, err := openDB(loc, opts)
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", loc.name, err)
	}
	j := &Journal{db: db, now: opts.Now, log: opts.Logger, loc: loc, committed: opts.Committed}
	if j.Shared() {
		j.lease, err = openDB(loc, opts)
	}
	if err == nil {
		err = j.setUp(ctx)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("journal: open %s: %w", loc.name, err), j.closeDBs())
	}
	return j, nil
}

// openDB returns the handle of the database at loc, with one connection
// that is never closed while the journal is open: an in-memory database
// lives exactly as long as its connection, and the journal's statements
// never wait on each other's locks.
func openDB(loc location, opts Options) (*sql.DB, error) {
	var (
		db  *sql.DB
		err error
	)
	if loc.dialect() == postgresDialect {
		db, err = openPostgres(loc, opts.BusyTimeout)
	} else {
		db, err = sql.Open("sqlite", loc.driverDSN(opts.BusyTimeout))
	}
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// withDefaults returns o with nil and zero fields defaulted.
func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Committed == nil {
		o.Committed = func(Commit) {}
	}
	return o
}

// setUp checks the connection settings, migrates the schema and prepares
// the fixed statements.
func (j *Journal) setUp(ctx context.Context) error {
	switch {
	case j.Shared():
		if err := checkPostgresDurability(ctx, j.db); err != nil {
			return err
		}
	case !j.loc.memory():
		if err := j.checkDurability(ctx); err != nil {
			return err
		}
	}
	if err := migrate(ctx, j.db, j.loc.dialect(), j.now, j.log); err != nil {
		return err
	}
	stmts, err := prepareStatements(ctx, j.db, j.loc.dialect())
	if err != nil {
		return err
	}
	j.stmts = stmts
	return nil
}

// checkDurability verifies that the file database really runs in WAL mode
// with synchronous=FULL and foreign keys on, the settings durability rests on.
func (j *Journal) checkDurability(ctx context.Context) error {
	var (
		mode     string
		sync, fk int
	)
	err := j.db.QueryRowContext(ctx, `SELECT journal_mode, synchronous, foreign_keys
		FROM pragma_journal_mode, pragma_synchronous, pragma_foreign_keys`).Scan(&mode, &sync, &fk)
	if err != nil {
		return fmt.Errorf("read database settings: %w", err)
	}
	const full = 2
	if mode != "wal" || sync != full || fk != 1 {
		return fmt.Errorf("database settings journal_mode=%s synchronous=%d foreign_keys=%d, want wal, %d, 1", mode, sync, fk, full)
	}
	return nil
}

// Close closes the database, then releases the owner lock if Own took it. Every write already
// returned is on disk.
func (j *Journal) Close() error {
	err := errors.Join(j.stmts.close(), j.closeDBs())
	if uerr := j.unlock(); uerr != nil && err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	return nil
}

// closeDBs closes the journal's database handles.
func (j *Journal) closeDBs() error {
	if j.lease == nil {
		return j.db.Close()
	}
	return errors.Join(j.lease.Close(), j.db.Close())
}

// stamp returns the current time as stored: UTC unix nanoseconds.
func (j *Journal) stamp() int64 {
	return j.now().UnixNano()
}

// rowsAffected returns how many rows the statement that returned res and
// err changed.
func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// abort rolls tx back after err and returns err, joined with any rollback
// failure.
func abort(tx *sql.Tx, err error) error {
	if rbErr := rollback(tx); rbErr != nil {
		return errors.Join(err, rbErr)
	}
	return err
}

// rollback rolls tx back, ignoring a transaction that is already done.
func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}
