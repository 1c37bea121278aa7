package journal

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// pageSizeOf returns the page size of j's database.
func pageSizeOf(t *testing.T, j *Journal) int {
	t.Helper()
	var n int
	if err := j.db.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNewJournalFileHasSmallPages(t *testing.T) {
	sqliteOnly(t)
	j := openDSN(t, tempDSN(t), newClock())
	if got := pageSizeOf(t, j); got != pageSize {
		t.Fatalf("page size of a new journal file = %d, want %d", got, pageSize)
	}
}

// TestJournalKeepsItsOwnPageSize opens a journal file whose database SQLite
// made with its default page size, as keeper's journals were made before
// pageSize: it keeps that page size, migrates, journals an action and reads
// it back after a reopen.
func TestJournalKeepsItsOwnPageSize(t *testing.T) {
	sqliteOnly(t)
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "made-before.db")
	db, err := sql.Open("sqlite", path+"?_pragma=page_size(4096)&_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	dsn := "sqlite:" + path
	j, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pageSizeOf(t, j); got != 4096 {
		t.Fatalf("page size after Open = %d, want the file's 4096", got)
	}
	if err := runSteps(ctx, j, "old-pages", landedPath); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j = openDSN(t, dsn, newClock())
	if got := pageSizeOf(t, j); got != 4096 {
		t.Fatalf("page size after a reopen = %d, want 4096", got)
	}
	act, err := j.Get(ctx, "old-pages")
	if err != nil || act.State != StateLanded {
		t.Fatalf("Get = %+v, %v; want the landed action", act, err)
	}
}
