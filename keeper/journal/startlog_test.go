package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// walSize returns the size of the write-ahead log of the database at path,
// 0 when there is none.
func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestStartLogWritesTheLogsHeaderAndChangesNothing(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(ctx, "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := versions(t, j)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened as a `run --once` reopens the journal an earlier run left:
	// that run's close checkpointed the log and removed it.
	j, err = Open(ctx, "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if n := walSize(t, path); n != 0 {
		t.Fatalf("log of a journal just reopened: %d bytes, want none", n)
	}
	var page int64
	if err := j.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	if err := j.StartLog(ctx); err != nil {
		t.Fatalf("StartLog: %v", err)
	}
	// The log's 32-byte header, then each frame's 24-byte header and page.
	if n, want := walSize(t, path), 32+24+page; n < want {
		t.Errorf("log after StartLog: %d bytes, want at least %d (its header and a frame)", n, want)
	}
	if after := versions(t, j); !slices.Equal(after, before) {
		t.Errorf("schema versions after StartLog = %v, want %v unchanged", after, before)
	}
	if _, _, _, err := j.Start(ctx, testIntent("after-start-log")); err != nil {
		t.Errorf("a write after StartLog: %v", err)
	}
}

func TestStartLogOfAJournalWithoutALog(t *testing.T) {
	j := openDSN(t, "sqlite::memory:", newClock())
	if err := j.StartLog(t.Context()); err != nil {
		t.Errorf("in memory: %v, want nothing done", err)
	}
}

func TestStartLogOfAClosedJournal(t *testing.T) {
	j, err := Open(t.Context(), tempDSN(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.StartLog(t.Context()); err == nil {
		t.Error("StartLog of a closed journal succeeded")
	}
}
