package keeper

import (
	"fmt"
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
			plans := make([]Plan, b.N)
			for i := range plans {
				plans[i] = repayPlan(fmt.Sprintf("bench%d", i))
				if err := w.market.prepare(market.IdempotencyKey(plans[i].ID + "-1")); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range plans {
				if got := k.run(plans[i]); got != OutcomeLanded {
					b.Fatalf("action %d: %s", i, got)
				}
			}
		})
	}
}
