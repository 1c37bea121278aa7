package journal

import (
	"context"
	"path/filepath"
	"testing"
)

// TestLazyWritesLeaveTheConnectionDurable: the records written without an
// fsync (a new attempt, the built transactions) are there to read, and the
// connection is back at synchronous=FULL (2) for the next durable write.
func TestLazyWritesLeaveTheConnectionDurable(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	j, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "keeper.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, _, err := j.Begin(ctx, Intent{ID: "a", Policy: "p", Kind: "repay", Target: "t", Reason: "r", Inputs: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	att, err := j.NewAttempt(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.RecordBuilt(ctx, "a", att.Number, Build{Mode: ModeRPC, Transactions: []string{"AA=="}}); err != nil {
		t.Fatal(err)
	}
	if a, err := j.Get(ctx, "a"); err != nil || a.State != StateBuilt || a.AttemptCount != 1 {
		t.Fatalf("after the lazy writes: %+v, %v", a, err)
	}
	var level int
	if err := j.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil || level != 2 {
		t.Errorf("synchronous = %d (%v) after lazy writes, want 2 (FULL)", level, err)
	}
}
