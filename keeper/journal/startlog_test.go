package journal

import (
	"context"
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

// reopened returns a file journal that was created, closed and opened
// again, as a `run --once` opens the journal an earlier run left (that
// run's close checkpointed the log and removed it), and its file's path.
// It is closed when the test ends.
func reopened(t *testing.T) (*Journal, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(t.Context(), "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return openDSN(t, "sqlite:"+path, newClock()), path
}

func TestStartLogWritesTheLogsHeaderAndChangesNothing(t *testing.T) {
	ctx := t.Context()
	j, path := reopened(t)
	before := versions(t, j)
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

// TestWarmUpOfAClosedJournalFails calls StartLog and Warm on a journal
// already closed: each returns an error.
func TestWarmUpOfAClosedJournalFails(t *testing.T) {
	for name, warm := range map[string]func(*Journal, context.Context) error{
		"StartLog": (*Journal).StartLog,
		"Warm":     (*Journal).Warm,
	} {
		t.Run(name, func(t *testing.T) {
			j, err := Open(t.Context(), tempDSN(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if err := warm(j, t.Context()); err == nil {
				t.Errorf("%s of a closed journal succeeded", name)
			}
		})
	}
}

// preparedCount is how many statements j has prepared.
func preparedCount(j *Journal) int {
	j.stmts.mu.Lock()
	defer j.stmts.mu.Unlock()
	return len(j.stmts.m)
}

// oneTransactionPath journals action id along the path of a one-transaction
// repay sent by RPC, from its intent to its landing.
func oneTransactionPath(ctx context.Context, j *Journal, id string) error {
	if _, _, _, err := j.Start(ctx, testIntent(id)); err != nil {
		return err
	}
	if err := j.RecordBuilt(ctx, id, 1, Build{Transactions: []string{"dHg="}, Mode: ModeRPC}); err != nil {
		return err
	}
	if err := j.RecordSigned(ctx, id, 1, signedFor(id, 1, 1)); err != nil {
		return err
	}
	if err := j.RecordSubmitted(ctx, id, 1); err != nil {
		return err
	}
	return j.Settle(ctx, id, 1, Outcome{State: StateLanded, FeeLamports: 5000})
}

// TestWarmPreparesTheActionPathAndWritesNothing checks that Warm starts the
// log, leaves no trace of its rehearsal, and prepares every statement a
// one-transaction action's path runs: none is left to prepare on the path.
func TestWarmPreparesTheActionPathAndWritesNothing(t *testing.T) {
	ctx := t.Context()
	j, path := reopened(t)
	if err := j.Warm(ctx); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	if walSize(t, path) == 0 {
		t.Error("Warm did not start the log")
	}
	if acts, err := j.List(ctx, Filter{}); err != nil || len(acts) != 0 {
		t.Errorf("actions after Warm = %+v, %v; want none", acts, err)
	}
	if _, err := j.Get(ctx, rehearsalID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(%q) after Warm: %v, want ErrNotFound", rehearsalID, err)
	}
	warmed := preparedCount(j)
	if err := oneTransactionPath(ctx, j, "first"); err != nil {
		t.Fatal(err)
	}
	if n := preparedCount(j); n != warmed {
		t.Errorf("the first action's path prepared %d more statements after Warm; Warm must rehearse all of them", n-warmed)
	}
	if act, err := j.Get(ctx, "first"); err != nil || act.State != StateLanded {
		t.Errorf("the action after Warm: %+v, %v; want landed", act, err)
	}
}
