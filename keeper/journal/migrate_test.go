package journal

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
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
			if got := versions(t, j); len(got) != 1 || got[0] != 1 {
				t.Fatalf("schema versions = %v, want [1]", got)
			}
			for _, table := range []string{"actions", "attempts", "attempt_transactions", "signatures"} {
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
	if vs := versions(t, j); len(vs) != 1 {
		t.Fatalf("schema versions after reopen = %v, want one row", vs)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dsn := tempDSN(t)
	ctx := t.Context()
	j, err := Open(ctx, dsn, Options{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.db.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied_at) VALUES (7, 'future', 0)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, err = Open(ctx, dsn, Options{})
	if err == nil {
		j.Close()
		t.Fatal("Open of a version 7 database succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "version 7") ||
		!strings.Contains(err.Error(), "up to 1") {
		t.Fatalf("Open error = %v, want ErrSchemaTooNew naming versions 7 and 1", err)
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
	withMigrations(t, migration{version: 2, name: "add note", statements: []string{
		`ALTER TABLE actions ADD COLUMN note TEXT NOT NULL DEFAULT ''`,
	}})
	j = openDSN(t, dsn, newClock())
	if vs := versions(t, j); len(vs) != 2 || vs[1] != 2 {
		t.Fatalf("schema versions = %v, want [1 2]", vs)
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
	withMigrations(t, migration{version: 2, name: "broken", statements: []string{
		`CREATE TABLE half_done (x INTEGER)`,
		`THIS IS NOT SQL`,
	}})
	if j, err := Open(ctx, dsn, Options{}); err == nil {
		j.Close()
		t.Fatal("Open with a broken migration succeeded")
	} else if !strings.Contains(err.Error(), "migration 2 (broken), statement 2") {
		t.Fatalf("Open error = %v, want it to name migration 2 statement 2", err)
	}
	migrations = migrations[:1]
	j = openDSN(t, dsn, newClock())
	if vs := versions(t, j); len(vs) != 1 {
		t.Fatalf("schema versions = %v, want [1]", vs)
	}
	var n int
	if err := j.db.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("half_done table count %d (err %v), want 0", n, err)
	}
}

func TestFileDatabaseIsDurable(t *testing.T) {
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
	if n := strings.Count(buf.String(), "journal schema migrated"); n != 1 {
		t.Fatalf("migration logged %d times, want once:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "version=1") {
		t.Fatalf("migration log lacks the version:\n%s", buf.String())
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
