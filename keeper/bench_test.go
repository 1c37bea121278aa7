package keeper

import (
	"fmt"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"path/filepath"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

// BenchmarkActionPath measures keeper's own time for one action that lands
// at once: journal writes, decoding, the guard, signing and bookkeeping.
// The market's transactions are built before the timer starts and the
// submitter answers at once, so no network or chain time is included.
func BenchmarkActionPath(b *testing.B) {
	for _, j := range []struct{ name, dsn string }{
		{"journal=memory", "sqlite::memory:"},
		{"journal=file", ""},
	} {
		b.Run(j.name, func(b *testing.B) {
			w := newWorld(b)
			w.sub.verify = false
			dsn := j.dsn
			if dsn == "" {
				dsn = "sqlite:" + filepath.Join(b.TempDir(), "bench.db")
			}
			k := w.open(b, dsn)
			plans := make([]action.Plan, b.N)
			for i := range plans {
				plans[i] = repayPlan(fmt.Sprintf("bench%d", i))
				if err := w.market.prepare(market.IdempotencyKey(plans[i].ID + "-1")); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range plans {
				if got := k.run(plans[i]); got != action.OutcomeLanded {
					b.Fatalf("action %d: %s", i, got)
				}
			}
		})
	}
}

// BenchmarkSequencePath measures keeper's own time for an action whose
// answer is a sequence of transactions: by RPC, one simulation and one
// send per transaction; as a bundle, one sequence simulation and one
// bundle (with keeper's tip). In-memory journal, instant submitter.
func BenchmarkSequencePath(b *testing.B) {
	for _, c := range []struct {
		name   string
		txs    int
		bundle bool
	}{
		{"rpc/txs=1", 1, false}, {"rpc/txs=3", 3, false}, {"bundle/txs=3", 3, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := newWorld(b)
			w.sub.verify = false
			k := w.open(b, "sqlite::memory:")
			plans := make([]action.Plan, b.N)
			for i := range plans {
				plans[i] = repayPlan(fmt.Sprintf("seq%d", i))
				if c.bundle {
					plans[i] = bundlePlan(fmt.Sprintf("seq%d", i), 100_000)
				}
				if err := w.market.prepareN(market.IdempotencyKey(plans[i].ID+"-1"), c.txs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range plans {
				if got := k.run(plans[i]); got != action.OutcomeLanded {
					b.Fatalf("action %d: %s", i, got)
				}
			}
		})
	}
}
