package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(runCrashChild())
	}
	if os.Getenv(ownerChildEnv) != "" {
		os.Exit(runOwnerChild())
	}
	goleak.VerifyTestMain(m)
}

// epoch is the first time every fake clock reports.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is a fake clock that advances one second on every reading, so
// every stored time is distinct and predictable.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock returns a clock whose first reading is epoch.
func newClock() *clock { return &clock{t: epoch.Add(-time.Second)} }

// Now advances the clock by one second and returns it.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// set makes the next reading t.
func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t.Add(-time.Second)
}

// openMemory opens an in-memory journal closed at the end of the test.
// In the PostgreSQL pass it is a new database, led and fenced.
func openMemory(t testing.TB, clk *clock) *Journal {
	t.Helper()
	if onPostgres() {
		return openPostgresLeader(t, clk)
	}
	return openDSN(t, "sqlite::memory:", clk)
}

// tempDSN returns the DSN of a new database file in a test directory.
func tempDSN(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
}

// openDSN opens dsn and closes it at the end of the test.
func openDSN(t testing.TB, dsn string, clk *clock) *Journal {
	t.Helper()
	j, err := Open(context.Background(), dsn, Options{Now: clk.Now})
	if err != nil {
		t.Fatalf("Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() {
		if err := j.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return j
}

// testIntent returns a valid intent with the given ID.
func testIntent(id string) Intent {
	return Intent{
		ID:     id,
		Policy: "repay-sol",
		Kind:   "repay",
		Target: "loan-" + id,
		Inputs: []byte(`{"ltv":812000,"threshold":800000}`),
		Reason: "ltv 81.2% above 80%",
		Mint:   "mint-usdc",
		Amount: 1_500_000,
	}
}

// signedFor returns n distinct signed transactions for attempt of id.
func signedFor(id string, attempt, n int) []SignedTx {
	sigs := make([]SignedTx, n)
	for i := range sigs {
		sigs[i] = SignedTx{
			Signature:            fmt.Sprintf("sig-%s-%d-%d", id, attempt, i),
			Blockhash:            fmt.Sprintf("bh-%d", attempt),
			LastValidBlockHeight: uint64(1000 * attempt),
			Transaction:          fmt.Sprintf("c2lnbmVk-%d-%d", attempt, i),
		}
	}
	return sigs
}

// buildFor returns a two-transaction bundle build for attempt.
func buildFor(attempt int) Build {
	return Build{
		Transactions: []string{fmt.Sprintf("dHgx-%d", attempt), fmt.Sprintf("dHgy-%d", attempt)},
		Mode:         ModeBundle,
		TipLamports:  10_000,
	}
}

// mustBegin journals a new intent or fails the test.
func mustBegin(t testing.TB, j *Journal, in Intent) Action {
	t.Helper()
	act, created, err := j.Begin(context.Background(), in)
	if err != nil || !created {
		t.Fatalf("Begin(%q) = created %v, %v; want a new action", in.ID, created, err)
	}
	return act
}
