package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/keeper-project/keeper/keeper/journal/internal/batch"

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
	// Writes is how many writes the transaction carried: more than one
	// when writes that arrived together were committed as a group.
	Writes int
	// Durable reports whether the commit was on disk (fsync'd, or on
	// PostgreSQL waited for the server's flush) when it returned.
	Durable bool
	// Duration is the time from the first write's statements to the end
	// of the commit, its flush included.
	Duration time.Duration
}

// commitHook is Options.Committed; nil reports nothing.
type commitHook func(Commit)

// report hands c to the hook, if set.
func (h commitHook) report(c Commit) {
	if h != nil {
		h(c)
	}
}

// Journal is the durable action journal. It is safe for concurrent use.
//
// Its methods are the action log's: an action's intent, attempts, builds,
// signatures, sends, tips and outcome. The other parts of the journal are
// their own types over the shared store, embedded so that the journal
// serves each consumer's interface: history (Get, Pending, List),
// incidents, trigger firings, leadership over a shared journal,
// maintenance (the owner lock, pruning, backups, the writability probe),
// and the warm-up before a process's first action.
type Journal struct {
	*store
	*history
	*incidentLog
	*triggerLog
	*engineTips
	*leadership
	*maintenance
	*warmup
}

// store is the database handle every part of the journal writes and reads
// through.
type store struct {
	// db is the database handle. It holds one connection, so the journal's
	// own statements never wait on each other's locks.
	db *sql.DB
	// now is the clock; always non-nil.
	now func() time.Time
	// log is the logger; always non-nil.
	log *slog.Logger
	// loc is where the database lives.
	loc location
	// stmts are the prepared statements of the journal's reads and writes.
	stmts stmtCache
	// fence is the leader's fencing token every write of a shared
	// (PostgreSQL) journal checks; 0 until Fence sets it.
	fence atomic.Int64
	// beforeCommit, when set (by tests), runs in every write transaction
	// after its statements, just before it commits.
	beforeCommit func(ctx context.Context, tx dbtx) error
	// group commits the writes of a file database that arrive together
	// (see groupWrite).
	group batch.Queue[*groupWrite]
	// committed is Options.Committed.
	committed commitHook
}

// Open opens (creating if needed) the journal at dsn, "sqlite:PATH",
// "sqlite::memory:" or a PostgreSQL URL ("postgres://USER@HOST/DATABASE",
// the database must exist), and migrates its schema to the newest version
// this binary knows. A relative PATH is relative to the working directory.
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
	st := &store{db: db, now: opts.Now, log: opts.Logger, loc: loc, stmts: stmtCache{db: db, dialect: loc.dialect()},
		committed: opts.Committed}
	if err := st.setUp(ctx, loc); err != nil {
		return nil, errors.Join(fmt.Errorf("journal: open %s: %w", loc.name, err), db.Close())
	}
	j := &Journal{store: st, history: &history{st}, incidentLog: &incidentLog{st}, triggerLog: &triggerLog{st},
		engineTips: &engineTips{st}, leadership: &leadership{store: st}, maintenance: &maintenance{store: st}}
	j.warmup = &warmup{j: j}
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
	return o
}

// setUp checks the connection settings and migrates the schema.
func (j *store) setUp(ctx context.Context, loc location) error {
	switch {
	case loc.dialect() == postgresDialect:
		if err := checkPostgresDurability(ctx, j.db); err != nil {
			return err
		}
	case !loc.memory():
		if err := j.checkDurability(ctx); err != nil {
			return err
		}
	}
	return migrate(ctx, j.db, loc.dialect(), j.now, j.log)
}

// checkDurability verifies that the file database really runs in WAL mode
// with synchronous=FULL and foreign keys on, the settings durability rests on.
func (j *store) checkDurability(ctx context.Context) error {
	var mode string
	if err := j.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("read journal_mode: %w", err)
	}
	var sync, fk int
	if err := j.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		return fmt.Errorf("read synchronous: %w", err)
	}
	if err := j.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("read foreign_keys: %w", err)
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
	j.stmts.close()
	err := errors.Join(j.lease.close(), j.db.Close())
	if uerr := j.unlock(); uerr != nil && err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	return nil
}

// stamp returns the current time as stored: UTC unix nanoseconds.
func (j *store) stamp() int64 {
	return j.now().UnixNano()
}

// write runs fn in a write transaction and commits it durably (fsync'd);
// on any error the transaction is rolled back and nothing is written. A
// file database commits it with the writes that arrive meanwhile (see
// groupWrite).
func (j *store) write(ctx context.Context, fn func(tx dbtx) error) error {
	return j.submit(&groupWrite{ctx: ctx, fn: fn, durable: true})
}

// submit commits w: on a file database through the commit group, where a
// commit's fsync is what a write waits for; on PostgreSQL (fenced) and in
// memory alone.
func (j *store) submit(w *groupWrite) error {
	if t, ok := w.ctx.Value(rehearsalKey{}).(dbtx); ok {
		return w.fn(t) // in the rehearsal's transaction, which is rolled back
	}
	if !j.shared() && !j.loc.memory() {
		return j.group.Do(w, j.commitGroup)
	}
	tx, err := j.db.BeginTx(w.ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	err = j.commit(w.ctx, tx, j.fenced(w.ctx, w.fn), w.durable && !j.loc.memory())
	j.stmts.prepare(w.ctx)
	return err
}

// commit runs fn in tx, its statements prepared through the journal's
// cache, and commits it, or rolls it back when fn fails. A commit is
// reported to Options.Committed as one write, durable as said.
func (j *store) commit(ctx context.Context, tx *sql.Tx, fn func(tx dbtx) error, durable bool) error {
	start := time.Now()
	t := dbtx{tx: tx, stmts: &j.stmts}
	err := fn(t)
	if err == nil && j.beforeCommit != nil {
		err = j.beforeCommit(ctx, t)
	}
	if err != nil {
		return abort(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	j.committed.report(Commit{Writes: 1, Durable: durable, Duration: time.Since(start)})
	return nil
}

// writeLazy is write for a record nothing outside the process depends on
// yet: its commit is not fsync'd (synchronous=NORMAL for that transaction),
// unless the commit group carries it with a durable write. In WAL mode a
// later durable commit syncs the log up to and including it, so the
// records an action needs durable before it reaches the network (the
// intent before the build, the signatures before the send) still carry
// every lazy record written before them; a crash may lose only lazy
// records written after the last durable one, which recovery treats as if
// the crash had come before them.
func (j *store) writeLazy(ctx context.Context, fn func(tx dbtx) error) error {
	if j.shared() {
		fn = lazyPostgres(ctx, fn)
	}
	return j.submit(&groupWrite{ctx: ctx, fn: fn})
}

// read runs fn in a read-only transaction, so it sees one snapshot.
func (j *store) read(ctx context.Context, fn func(tx dbtx) error) error {
	tx, err := j.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read transaction: %w", err)
	}
	err = fn(dbtx{tx: tx, stmts: &j.stmts})
	if err != nil {
		err = abort(tx, err)
	} else {
		err = rollback(tx)
	}
	j.stmts.prepare(ctx)
	return err
}

// readAll runs query with args in a read transaction and returns its rows.
func readAll[T any](ctx context.Context, st *store, query func(context.Context, querier, string, ...any) ([]T, error), q string, args ...any) ([]T, error) {
	var out []T
	err := st.read(ctx, func(tx dbtx) error {
		var err error
		out, err = query(ctx, tx, q, args...)
		return err
	})
	return out, err
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
