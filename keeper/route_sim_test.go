package keeper

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
)

// TestRouteReadsFeesBesideTheSimulation: a repay with pricing on reads the
// fee market and simulates the answer as built at once, each call taking
// 20 ms: on quiet accounts that simulation is the guard's and the answer
// goes out after one build and one simulation; under congestion its units
// size the priced build's limit and the guard simulates the priced build:
// two builds, two simulations, and no round trip between the fee read and
// the first simulation.
func TestRouteReadsFeesBesideTheSimulation(t *testing.T) {
	const rtt = 20 * time.Millisecond
	cases := []struct {
		name         string
		opts         func(testing.TB) simOptions
		builds, sims int
		priced       bool
	}{
		{name: "quiet", opts: func(testing.TB) simOptions { return simOptions{} }, builds: 1, sims: 1},
		{name: "congested", opts: func(tb testing.TB) simOptions { return congested(tb, "repay-me, $wallet") }, builds: 2, sims: 2, priced: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, tc.opts(t))
				w.useRepay(t, "submit: { mode: auto }")
				k := w.open(t, "")
				w.advance(t, 15*time.Second)
				var mu sync.Mutex
				asked := map[string][]time.Time{}
				w.net.before = func(c netCall, _ []byte) {
					mu.Lock()
					asked[c.Method] = append(asked[c.Method], time.Now())
					mu.Unlock()
					time.Sleep(rtt)
				}
				builds := len(w.net.buildKeys())
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("RunOnce: %v", err)
				}
				acts := k.actionsOf(t, "auto-repay")
				if len(acts) != 1 || acts[0].State != journal.StateLanded || len(acts[0].Attempts) != 1 {
					t.Fatalf("actions %+v, want one landed in its first attempt", acts)
				}
				if b := landedTx(t, acts[0].Attempts[0]).Budget(); b.HasPrice != tc.priced {
					t.Errorf("landed repay's compute budget %+v, want priced %v", b, tc.priced)
				}
				mu.Lock()
				defer mu.Unlock()
				fees, sims := asked["getRecentPrioritizationFees"], asked["simulateTransaction"]
				if n := len(w.net.buildKeys()) - builds; n != tc.builds || len(fees) != 1 || len(sims) != tc.sims {
					t.Fatalf("%d builds, %d fee reads, %d simulations; want %d, 1, %d", n, len(fees), len(sims), tc.builds, tc.sims)
				}
				if answered := fees[0].Add(rtt); !sims[0].Before(answered) {
					t.Errorf("the answer as built was simulated %v after the fee read was answered: want both asked at once",
						sims[0].Sub(answered))
				}
			})
		})
	}
}
