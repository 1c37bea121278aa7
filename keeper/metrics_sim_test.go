package keeper

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestProcessMetrics: keeper's registry carries the Go runtime's and the
// process's series, keeper_build_info, and each scheduled policy's
// interval (auto-repay.yaml's policies run @every 5s).
func TestProcessMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(time.Second)
		synctest.Wait()
		families, err := k.registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				v := m.GetGauge().GetValue()
				for _, l := range m.GetLabel() {
					if l.GetName() == "policy" && l.GetValue() != "auto-repay" {
						v = -1 // another policy's
					}
				}
				if v >= 0 {
					got[f.GetName()] = v
				}
			}
		}
		for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "keeper_build_info"} {
			if _, ok := got[name]; !ok {
				t.Errorf("no %s series", name)
			}
		}
		if got["keeper_policy_interval_seconds"] != 5 {
			t.Errorf("keeper_policy_interval_seconds{policy=auto-repay} = %v, want 5", got["keeper_policy_interval_seconds"])
		}
		if err := r.stop(); err != nil {
			t.Error(err)
		}
	})
}
