package keeper

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
)

// TestShutdownTimeoutOption: Options.ShutdownTimeout replaces the 30 s
// bound, as the demo (`run --sim`) sets it: a repay the chain never lands
// holds the shutdown for that bound, not for 30 s, and stays journaled as
// submitted.
func TestShutdownTimeoutOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.useUSDCRepay(t)
		drop := &neverLandFirst{chain: w.sim.Chain()}
		sent := newSignal()
		w.net.before = func(c netCall, body []byte) {
			if c.Method == "sendTransaction" {
				drop.before(c, body)
				sent.fire()
			}
		}
		k := w.open(t, "")
		const bound = 3 * time.Second
		k.shutdownTimeout = bound
		r := k.start(t)
		<-sent.ch
		stopped := time.Now()
		if err := r.stop(); err != nil {
			t.Fatalf("Run = %v", err)
		}
		if took := time.Since(stopped); took != bound {
			t.Errorf("shutdown took %v, want the option's bound %v", took, bound)
		}
		if acts := k.actionsOf(t, "auto-repay"); len(acts) != 1 || acts[0].State != journal.StateSubmitted {
			t.Errorf("after the bounded shutdown: %+v, want the repay submitted", acts)
		}
	})
}
