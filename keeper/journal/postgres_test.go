package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// postgresEnv names a PostgreSQL server, as a URL whose user may create
// databases, on which the journal's tests run a second time; each test
// makes its own database there and drops it. .ci/run starts one and sets it.
const postgresEnv = "KEEPER_TEST_POSTGRES"

// backendEnv is set to "postgres" in the test binary that
// TestSuiteOnPostgres starts: there openMemory opens PostgreSQL databases.
const backendEnv = "KEEPER_JOURNAL_TEST_BACKEND"

// onPostgres reports whether this test binary is the PostgreSQL pass.
func onPostgres() bool { return os.Getenv(backendEnv) == "postgres" }

// TestSuiteOnPostgres runs every test of the package again with the
// journals of openMemory on PostgreSQL, in a child test binary, so the
// SQLite and PostgreSQL journals pass the same tests.
func TestSuiteOnPostgres(t *testing.T) {
	if onPostgres() {
		t.Skip("this is the PostgreSQL pass")
	}
	if os.Getenv(postgresEnv) == "" {
		t.Skip(postgresEnv + " is not set: the journal's tests ran on SQLite only " +
			"(set it to a PostgreSQL URL whose user may create databases; .ci/run does)")
	}
	args := []string{"-test.count=1", "-test.timeout=10m"}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), backendEnv+"=postgres")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the journal's tests on PostgreSQL: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("the journal's tests on PostgreSQL:\n%s", out)
	}
}

// needPostgres skips a test that needs a PostgreSQL server unless this is
// the PostgreSQL pass.
func needPostgres(t testing.TB) {
	t.Helper()
	if !onPostgres() {
		t.Skip("needs PostgreSQL: runs in TestSuiteOnPostgres when " + postgresEnv + " is set")
	}
}

// sqliteOnly skips a test of SQLite's files in the PostgreSQL pass.
func sqliteOnly(t testing.TB) {
	t.Helper()
	if onPostgres() {
		t.Skip("tests the SQLite file store, covered by the SQLite pass")
	}
}

// newPostgresDatabase makes an empty schema on the test server's
// database, drops it at the end of the test, and returns a URL whose
// sessions use it: a schema costs a few milliseconds where a database
// costs a copy of template1.
func newPostgresDatabase(t testing.TB) string {
	t.Helper()
	server := os.Getenv(postgresEnv)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "keeper_test_" + hex.EncodeToString(b[:])
	adminExec(t, server, "CREATE SCHEMA "+name)
	t.Cleanup(func() { adminExec(t, server, "DROP SCHEMA "+name+" CASCADE") })
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// adminExec runs stmt on the test server.
func adminExec(t testing.TB, server, stmt string) {
	t.Helper()
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(context.Background(), stmt); err != nil {
		t.Errorf("%s: %v", stmt, err)
	}
}

// openPostgresLeader opens a journal on a new PostgreSQL database, leads
// it and fences its writes, and closes it at the end of the test.
func openPostgresLeader(t testing.TB, clk *clock) *Journal {
	t.Helper()
	j := openDSN(t, newPostgresDatabase(t), clk)
	lead(t, j, "test")
	return j
}

// lead wins the lease of j for an hour and fences j's writes with it.
func lead(t testing.TB, j *Journal, holder string) Lease {
	t.Helper()
	l, won, err := j.Campaign(context.Background(), holder, time.Hour)
	if err != nil || !won {
		t.Fatalf("Campaign = %+v, %v, %v; want a new term", l, won, err)
	}
	j.Fence(l.Token)
	return l
}

func TestPostgresDSNSecretStaysOut(t *testing.T) {
	for _, dsn := range []string{
		"postgres://keeper:s3cret-pw@127.0.0.1:1/keeper",
		"postgres://keeper:s3cret-pw@127.0.0.1:notaport/keeper",
		"postgresql://keeper@127.0.0.1:1/keeper?password=s3cret-pw",
		"postgres://keeper:s3cret-pw@127.0.0.1:1/",
	} {
		j, err := Open(t.Context(), dsn, Options{})
		if err == nil {
			j.Close()
			t.Fatalf("Open(%s) succeeded against a closed port", redactDSN(dsn))
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open error shows the password: %v", err)
		}
		if !strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("Open error %q does not say which server", err)
		}
	}
}

func TestLeaseTermsAndFencing(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	dsn := newPostgresDatabase(t)
	a, b := openDSN(t, dsn, newClock()), openDSN(t, dsn, newClock())
	if _, _, err := a.Begin(ctx, testIntent("before")); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("write before any campaign: %v, want ErrNotLeader", err)
	}
	// A leads with a lease that lapses at once; B then takes the next term.
	la, won, err := a.Campaign(ctx, "keeper a", 0)
	if err != nil || !won || la.Token != 1 {
		t.Fatalf("A's campaign = %+v, %v, %v; want term 1", la, won, err)
	}
	a.Fence(la.Token)
	mustBegin(t, a, testIntent("by-a"))
	lb, won, err := b.Campaign(ctx, "keeper b", time.Hour)
	if err != nil || !won || lb.Token != 2 {
		t.Fatalf("B's campaign over a lapsed lease = %+v, %v, %v; want term 2", lb, won, err)
	}
	b.Fence(lb.Token)
	// A, deposed, can record nothing more; B can.
	var deposed *DeposedError
	if _, _, err := a.Begin(ctx, testIntent("by-a-late")); !errors.As(err, &deposed) || deposed.Current != 2 || !errors.Is(err, ErrNotLeader) {
		t.Fatalf("deposed leader's write: %v, want a DeposedError at term 2", err)
	}
	if ok, err := a.Renew(ctx, la.Token, time.Hour); ok || err != nil {
		t.Fatalf("deposed leader's renewal = %v, %v; want refused", ok, err)
	}
	mustBegin(t, b, testIntent("by-b"))
	// While B's lease runs, A cannot take it back, and learns who holds it.
	cur, won, err := a.Campaign(ctx, "keeper a", time.Hour)
	if err != nil || won || cur.Token != 2 || cur.Holder != "keeper b" || cur.Remaining <= 0 {
		t.Fatalf("campaign against a live lease = %+v, %v, %v; want B's term 2", cur, won, err)
	}
	if ok, err := b.Renew(ctx, lb.Token, time.Hour); !ok || err != nil {
		t.Fatalf("leader's renewal = %v, %v", ok, err)
	}
	// B resigns: A takes term 3 at once.
	if err := b.Resign(ctx, lb.Token); err != nil {
		t.Fatal(err)
	}
	la3, won, err := a.Campaign(ctx, "keeper a", time.Hour)
	if err != nil || !won || la3.Token != 3 {
		t.Fatalf("campaign after a resignation = %+v, %v, %v; want term 3", la3, won, err)
	}
	if _, _, err := b.Begin(ctx, testIntent("by-b-late")); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("resigned leader's write: %v, want ErrNotLeader", err)
	}
	acts, err := a.Pending(ctx)
	ids := map[string]bool{}
	for _, act := range acts {
		ids[act.ID] = true
	}
	if err != nil || len(acts) != 2 || !ids["by-a"] || !ids["by-b"] {
		t.Fatalf("journal holds %+v, %v; want the writes of A's and B's terms only", acts, err)
	}
}

// A leader frozen inside a fenced write holds the lease row; the server
// ends its idle transaction, so a standby still takes the lapsed lease, and
// the frozen write, continued, commits nothing.
func TestFrozenWriterDoesNotBlockTakeover(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	dsn := newPostgresDatabase(t)
	a, b := openDSN(t, dsn, newClock()), openDSN(t, dsn, newClock())
	la, won, err := a.Campaign(ctx, "keeper a", 0) // lapses at once
	if err != nil || !won {
		t.Fatalf("A's campaign: %v, %v", won, err)
	}
	a.Fence(la.Token)
	frozen, thaw := make(chan struct{}), make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		wrote <- a.write(ctx, durable, func(tx dbtx) error {
			close(frozen) // the fencing check passed: the lease row is locked
			<-thaw
			_, err := insertIntent(ctx, tx, testIntent("by-frozen-a"), 1)
			return err
		})
	}()
	<-frozen
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var lb Lease
	for {
		// Each attempt waits on the lock until lock_timeout; the server ends
		// A's idle transaction after pgIdleInTransaction.
		if lb, won, err = b.Campaign(cctx, "keeper b", time.Hour); won || cctx.Err() != nil {
			break
		}
	}
	if !won || lb.Token != 2 {
		t.Fatalf("B's campaign while A is frozen in a write = %+v, %v, %v; want term 2", lb, won, err)
	}
	close(thaw)
	if err := <-wrote; err == nil {
		t.Fatal("the frozen leader's write committed after another keeper took the lease")
	}
	b.Fence(lb.Token)
	if acts, err := b.Pending(ctx); err != nil || len(acts) != 0 {
		t.Fatalf("journal holds %+v, %v; want nothing of the frozen write", acts, err)
	}
}

func TestProbeChangesNothing(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	dsn := newPostgresDatabase(t)
	if l, err := Probe(ctx, dsn); err != nil || l != (Lease{}) {
		t.Fatalf("Probe of an empty database = %+v, %v; want no lease", l, err)
	}
	var tables int
	server := sqlOpen(t, dsn)
	if err := server.QueryRowContext(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("Probe created %d tables (%v)", tables, err)
	}
	j := openDSN(t, dsn, newClock())
	lead(t, j, "keeper a")
	if l, err := Probe(ctx, dsn); err != nil || l.Token != 1 || l.Holder != "keeper a" || l.Remaining <= 0 {
		t.Fatalf("Probe of a led journal = %+v, %v", l, err)
	}
	if _, err := Probe(ctx, "sqlite::memory:"); !errors.Is(err, ErrNotShared) {
		t.Fatalf("Probe of SQLite: %v", err)
	}
}

// sqlOpen opens dsn with the pgx driver for the test's own queries.
func sqlOpen(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestLeaseOnSQLiteIsRefused(t *testing.T) {
	j := openDSN(t, "sqlite::memory:", newClock())
	if j.Shared() {
		t.Fatal("an SQLite journal says it is shared")
	}
	if _, _, err := j.Campaign(t.Context(), "x", time.Second); !errors.Is(err, ErrNotShared) {
		t.Fatalf("Campaign on SQLite: %v, want ErrNotShared", err)
	}
}

// The pgx driver registers itself as "pgx" for database/sql.
var _ = stdlib.GetDefaultDriver
