package journal

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// versions returns the applied schema versions in order.
func versions(t *testing.T, j *Journal) []int {
	t.Helper()
	rows, err := j.db.QueryContext(t.Context(), `SELECT version FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestMigrationsAreContiguous(t *testing.T) {
	for i, m := range migrations {
		if m.version != i+1 || m.name == "" || len(m.statements) == 0 {
			t.Errorf("migrations[%d] = version %d %q with %d statements; want version %d, a name and statements",
				i, m.version, m.name, len(m.statements), i+1)
		}
	}
}

func TestFreshDatabaseIsMigrated(t *testing.T) {
	for _, dsn := range []string{"sqlite::memory:", tempDSN(t)} {
		t.Run(dsn, func(t *testing.T) {
			j := openDSN(t, dsn, newClock())
			if got := versions(t, j); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
				t.Fatalf("schema versions = %v, want [1 2 3 4 5 6 7 8]", got)
			}
			for _, table := range []string{"actions", "attempts", "attempt_transactions", "signatures", "tips", "incidents", "trigger_firings", "leader_lease", "engine_tip_accounts", "squads_proposals"} {
				var n int
				err := j.db.QueryRowContext(t.Context(),
					`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&n)
				if err != nil || n != 1 {
					t.Errorf("table %s: count %d, err %v; want 1", table, n, err)
				}
			}
		})
	}
}

func TestReopenKeepsDataAndVersion(t *testing.T) {
	dsn := tempDSN(t)
	ctx := t.Context()
	j, err := Open(ctx, dsn, Options{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	want := mustBegin(t, j, testIntent("keep"))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j = openDSN(t, dsn, newClock())
	got, err := j.Get(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != want.ID || got.Amount != want.Amount || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("after reopen got %+v, want %+v", got, want)
	}
	if vs := versions(t, j); len(vs) != latestVersion() {
		t.Fatalf("schema versions after reopen = %v, want one row per migration", vs)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dsn := tempDSN(t)
	ctx := t.Context()
	j, err := Open(ctx, dsn, Options{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.db.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied_at) VALUES (9, 'future', 0)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, err = Open(ctx, dsn, Options{})
	if err == nil {
		j.Close()
		t.Fatal("Open of a version 9 database succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "version 9") ||
		!strings.Contains(err.Error(), fmt.Sprintf("up to %d", latestVersion())) {
		t.Fatalf("Open error = %v, want ErrSchemaTooNew naming versions 9 and %d", err, latestVersion())
	}
}

// withMigrations appends extra migrations for the duration of the test.
func withMigrations(t *testing.T, extra ...migration) {
	saved := migrations
	migrations = append(migrations[:len(migrations):len(migrations)], extra...)
	t.Cleanup(func() { migrations = saved })
}

func TestAppendedMigrationUpgradesOldDatabase(t *testing.T) {
	dsn := tempDSN(t)
	ctx := t.Context()
	j, err := Open(ctx, dsn, Options{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	mustBegin(t, j, testIntent("old"))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	next := latestVersion() + 1
	withMigrations(t, migration{version: next, name: "add note", statements: []string{
		`ALTER TABLE actions ADD COLUMN note TEXT NOT NULL DEFAULT ''`,
	}})
	j = openDSN(t, dsn, newClock())
	if vs := versions(t, j); len(vs) != next || vs[next-1] != next {
		t.Fatalf("schema versions = %v, want 1 to %d", vs, next)
	}
	var note string
	if err := j.db.QueryRowContext(ctx, `SELECT note FROM actions WHERE id = 'old'`).Scan(&note); err != nil {
		t.Fatalf("migrated column: %v", err)
	}
	if _, err := j.Get(ctx, "old"); err != nil {
		t.Fatalf("Get after migration: %v", err)
	}
}

func TestFailedMigrationRollsBack(t *testing.T) {
	dsn := tempDSN(t)
	ctx := context.Background()
	j, err := Open(ctx, dsn, Options{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	known := latestVersion()
	withMigrations(t, migration{version: known + 1, name: "broken", statements: []string{
		`CREATE TABLE half_done (x INTEGER)`,
		`THIS IS NOT SQL`,
	}})
	if j, err := Open(ctx, dsn, Options{}); err == nil {
		j.Close()
		t.Fatal("Open with a broken migration succeeded")
	} else if want := fmt.Sprintf("migration %d (broken), statement 2", known+1); !strings.Contains(err.Error(), want) {
		t.Fatalf("Open error = %v, want it to name migration %d statement 2", err, known+1)
	}
	migrations = migrations[:known]
	j = openDSN(t, dsn, newClock())
	if vs := versions(t, j); len(vs) != known {
		t.Fatalf("schema versions = %v, want 1 to %d", vs, known)
	}
	var n int
	if err := j.db.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("half_done table count %d (err %v), want 0", n, err)
	}
}

func TestFileDatabaseIsDurable(t *testing.T) {
	sqliteOnly(t)
	j := openDSN(t, tempDSN(t), newClock())
	var mode string
	var sync, fk int
	ctx := t.Context()
	if err := j.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := j.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if err := j.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || sync != 2 || fk != 1 {
		t.Fatalf("journal_mode=%s synchronous=%d foreign_keys=%d, want wal 2 1", mode, sync, fk)
	}
}

func TestMigrationIsLoggedOnce(t *testing.T) {
	dsn := tempDSN(t)
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	for range 2 {
		j, err := Open(t.Context(), dsn, Options{Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "journal schema migrated"); n != len(migrations) {
		t.Fatalf("migrations logged %d times, want once each (%d):\n%s", n, len(migrations), buf.String())
	}
	for _, m := range migrations {
		if !strings.Contains(buf.String(), fmt.Sprintf("version=%d", m.version)) {
			t.Fatalf("migration log lacks version %d:\n%s", m.version, buf.String())
		}
	}
}

func TestDefaultClockStoresUTC(t *testing.T) {
	j, err := Open(t.Context(), "sqlite::memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	before := time.Now()
	act := mustBegin(t, j, testIntent("a"))
	if act.CreatedAt.Before(before.Add(-time.Minute)) || act.CreatedAt.Location() != time.UTC {
		t.Fatalf("CreatedAt = %v, want a UTC time at or after %v", act.CreatedAt, before)
	}
}

// upgradeWrites are the writes a version-1 keeper made before the upgrade:
// an action landed on its second attempt and one in flight.
var upgradeWrites = []struct {
	id    string
	steps []pathStep
}{
	{"landed", scenarios[0].steps},
	{"inflight", upTo(afterSubmitted1)},
}

// writeUpgradeActions runs upgradeWrites on j with its clock clk restarted.
func writeUpgradeActions(t *testing.T, j *Journal, clk *clock) {
	t.Helper()
	clk.set(epoch)
	for _, w := range upgradeWrites {
		if err := runSteps(t.Context(), j, w.id, w.steps); err != nil {
			t.Fatalf("write %s: %v", w.id, err)
		}
	}
}

// schemaOf returns the database's tables and indexes with their SQL.
func schemaOf(t *testing.T, j *Journal) []string {
	t.Helper()
	var out []string
	err := eachRow(t.Context(), j.db, "schema", `SELECT type || ' ' || name || ': ' || COALESCE(sql, '')
		FROM sqlite_master ORDER BY type, name`, nil, func(rows *sql.Rows) error {
		var s string
		err := rows.Scan(&s)
		out = append(out, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// versionOneSchema is the schema a keeper that knew only migration 1
// created.
func versionOneSchema(t *testing.T) []string {
	t.Helper()
	saved := migrations
	migrations = saved[:1]
	defer func() { migrations = saved }()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := migrate(t.Context(), db, sqliteDialect, time.Now, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return schemaOf(t, &Journal{db: db})
}

// versionOneDatabase returns a database file holding upgradeWrites as a
// version-1 keeper left them. The writes use this binary's methods (their
// statements on the version-1 tables are version 1's); what migration 2
// added is then dropped, and the schema is checked to be exactly the one
// migration 1 creates.
func versionOneDatabase(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	dsn := tempDSN(t)
	clk := newClock()
	j, err := Open(ctx, dsn, Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	writeUpgradeActions(t, j, clk)
	for _, stmt := range []string{`DROP TABLE tips`, `DROP TABLE incidents`, `DROP TABLE trigger_firings`, `DROP TABLE leader_lease`,
		`DROP TABLE engine_tip_accounts`, `DROP TABLE squads_proposals`,
		`DROP INDEX actions_unsettled`, `DROP INDEX actions_policy_target`, schemaV1[1], schemaV1[3], schemaV1[4], schemaV1[7],
		`DELETE FROM schema_version WHERE version > 1`} {
		if _, err := j.db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	got := schemaOf(t, j)
	if vs := versions(t, j); !slices.Equal(vs, []int{1}) {
		t.Fatalf("schema versions = %v, want [1]", vs)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if want := versionOneSchema(t); !slices.Equal(got, want) {
		t.Fatalf("database schema differs from version 1's:\n got %q\nwant %q", got, want)
	}
	return dsn
}

func TestVersion1DatabaseUpgradesToTips(t *testing.T) {
	ctx := t.Context()
	j := openDSN(t, versionOneDatabase(t), newClock())
	if vs := versions(t, j); !slices.Equal(vs, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("schema versions after the upgrade = %v, want [1 2 3 4 5 6 7 8]", vs)
	}
	replayClock := newClock()
	replay := openMemory(t, replayClock)
	writeUpgradeActions(t, replay, replayClock)
	for _, w := range upgradeWrites {
		got, err := j.Get(ctx, w.id)
		if err != nil {
			t.Fatalf("Get %s after the upgrade: %v", w.id, err)
		}
		want, err := replay.Get(ctx, w.id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s after the upgrade differs from the same writes on version 2:\n got %+v\nwant %+v", w.id, got, want)
		}
	}
	if pending, err := j.Pending(ctx); err != nil || len(pending) != 1 || pending[0].ID != "inflight" {
		t.Fatalf("Pending after the upgrade = %+v, %v; want the in-flight action", pending, err)
	}

	// The in-flight attempt of the old keeper takes tips; a signature the old
	// keeper journaled cannot be one.
	old := signedFor("inflight", 1, 3)[0].Signature
	if err := j.RecordTip(ctx, "inflight", 1, Tip{Signature: old, Blockhash: "bh-1", Account: "acct", Lamports: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("tip reusing a version-1 signature: error %v, want ErrInvalid", err)
	}
	tip := tipFor("inflight", 1, 0, 25_000)
	if err := j.RecordTip(ctx, "inflight", 1, tip); err != nil {
		t.Fatalf("RecordTip after the upgrade: %v", err)
	}
	act, err := j.Get(ctx, "inflight")
	if err != nil {
		t.Fatal(err)
	}
	if tips := act.Attempts[0].Tips; len(tips) != 1 || tips[0].Signature != tip.Signature || tips[0].Lamports != 25_000 {
		t.Errorf("in-flight attempt tips = %+v, want the one recorded", tips)
	}
	// landed: attempt 1 expired paying no tip, attempt 2 fee 15000 + tip
	// 10000; in flight: the 25000 tip, above the planned 10000.
	if got := feesOf(t, j); got != 15_000+10_000+25_000 {
		t.Errorf("fees + counted tips = %d, want %d", got, 15_000+10_000+25_000)
	}
}

// feesOf sums every attempt's fee and counted tip (Attempt.CountedTip), as
// a policy's daily fee limit counts them.
func feesOf(t *testing.T, j *Journal) uint64 {
	t.Helper()
	acts, err := j.List(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, a := range acts {
		for _, att := range a.Attempts {
			sum += att.FeeLamports + att.CountedTip()
		}
	}
	return sum
}
