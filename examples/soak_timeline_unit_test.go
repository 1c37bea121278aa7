package examples_test

import (
	"testing"
	"time"
)

// TestAttributeOverruns checks the soak's rule for what made a run overrun: a walk of loans read
// again during the run, else other processes taking the CPU in the second of the skip or the one
// before, else keeper.
func TestAttributeOverruns(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 17, 0, 0, 700_000_000, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	// looks builds one look a second from t0 with the given cumulative skips and CPU ticks of others.
	looks := func(laps []float64, others []int) []soakSecond {
		out := make([]soakSecond, len(laps))
		for i := range laps {
			out[i] = soakSecond{at: at(float64(i)), laps: laps[i], others: others[i]}
		}
		return out
	}
	cases := []struct {
		name    string
		seconds []soakSecond
		rereads []time.Time
		from    time.Time
		want    overrunCauses
	}{{
		name:    "quiet and on time",
		seconds: looks([]float64{0, 0, 0, 0}, []int{0, 3, 9, 1}),
		want:    overrunCauses{seconds: 3},
	}, {
		name:    "an overrun on a quiet machine is keeper's",
		seconds: looks([]float64{0, 0, 40, 40}, []int{0, 5, 19, 2}),
		want:    overrunCauses{keeper: 40, seconds: 3},
	}, {
		name:    "a busy second before the skip explains it",
		seconds: looks([]float64{0, 0, 50, 50}, []int{0, 20, 0, 0}),
		want:    overrunCauses{machine: 50, busy: 1, seconds: 3},
	}, {
		name:    "a busy second of the skip explains it",
		seconds: looks([]float64{0, 0, 50, 50}, []int{0, 0, 120, 0}),
		want:    overrunCauses{machine: 50, busy: 1, seconds: 3},
	}, {
		name:    "a busy second two before the skip does not",
		seconds: looks([]float64{0, 0, 0, 50}, []int{0, 90, 0, 0}),
		want:    overrunCauses{keeper: 50, busy: 1, seconds: 3},
	}, {
		// The skip between the looks at 2 and 3 found a run of the tick at about 1.0 still going: a
		// walk read again from a second before the look at 2 (1.7) on explains it.
		name:    "a walk read again during the run explains it, busy or not",
		seconds: looks([]float64{0, 0, 0, 50}, []int{0, 0, 60, 0}),
		rereads: []time.Time{at(1.1)},
		want:    overrunCauses{snapshot: 50, busy: 1, seconds: 3},
	}, {
		name:    "a walk read again before the run does not",
		seconds: looks([]float64{0, 0, 0, 50}, []int{0, 0, 0, 0}),
		rereads: []time.Time{at(0.9)},
		want:    overrunCauses{keeper: 50, seconds: 3},
	}, {
		name:    "a walk read again after the skip was counted does not",
		seconds: looks([]float64{0, 0, 0, 50}, []int{0, 0, 0, 0}),
		rereads: []time.Time{at(3.1)},
		want:    overrunCauses{keeper: 50, seconds: 3},
	}, {
		name:    "skips before the warm-up ended are not judged",
		seconds: looks([]float64{0, 50, 100, 100}, []int{0, 0, 0, 0}),
		from:    at(2.5),
		want:    overrunCauses{seconds: 1},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.from.IsZero() {
				c.from = t0
			}
			if got := attributeOverruns(c.seconds, c.rereads, c.from); got != c.want {
				t.Errorf("attributeOverruns = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestSnapshotRereads checks that the soak finds the daemon's re-read walks in its JSON log.
func TestSnapshotRereads(t *testing.T) {
	log := `{"time":"2026-11-26T17:01:30.67977376Z","level":"WARN","msg":"Skipping tick: previous run still in progress","policy":"health-3"}
{"time":"2026-11-26T17:01:30.67977376Z","level":"WARN","msg":"Pages of a walk carry different oracle snapshots; reading it again","endpoint":"loans_info","walk":1,"of":3}
not json, Pages of a walk carry different oracle snapshots; reading it again
{"time":"2026-11-26T17:02:00.775315916Z","level":"WARN","msg":"Pages of a walk carry different oracle snapshots; reading it again","endpoint":"loans_info","walk":1,"of":3}
`
	got := snapshotRereads(log)
	want := []time.Time{time.Date(2026, 11, 26, 17, 1, 30, 679773760, time.UTC), time.Date(2026, 11, 26, 17, 2, 0, 775315916, time.UTC)}
	if len(got) != len(want) {
		t.Fatalf("snapshotRereads = %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("reread %d at %v, want %v", i, got[i], want[i])
		}
	}
}
