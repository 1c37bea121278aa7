package keeper

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

type runLog struct {
	mu   sync.Mutex
	runs []runInfo
	at   []time.Time
}

func (l *runLog) add(r runInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs = append(l.runs, r)
	l.at = append(l.at, time.Now())
}

func (l *runLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.runs)
}

func newTestScheduler(ctx context.Context) (*scheduler, *Metrics) {
	m := NewMetrics(prometheus.NewRegistry())
	return newScheduler(ctx, slog.New(slog.DiscardHandler), m), m
}

func TestSchedulerFiresOnSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m := newTestScheduler(t.Context())
		var l runLog
		if err := s.add("p", "@every 30s", 0, func(_ context.Context, r runInfo) error { l.add(r); return nil }); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		s.start()
		time.Sleep(95 * time.Second)
		synctest.Wait()
		<-s.stop().Done()
		if l.len() != 3 {
			t.Fatalf("runs = %d, want 3 in 95s of @every 30s", l.len())
		}
		for i, at := range l.at {
			if want := time.Duration(i+1) * 30 * time.Second; at.Sub(start).Round(time.Second) != want {
				t.Errorf("run %d at %v, want %v", i, at.Sub(start), want)
			}
		}
		if l.runs[0].ID == l.runs[1].ID || l.runs[0].Policy != "p" || l.runs[0].Tick.Location() != time.UTC {
			t.Errorf("run info = %+v", l.runs[:2])
		}
		if got := testutil.ToFloat64(m.Runs.WithLabelValues("p", "ok")); got != 3 {
			t.Errorf("runs metric = %v", got)
		}
	})
}

func TestSchedulerSkipsOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m := newTestScheduler(t.Context())
		release := make(chan struct{})
		var l runLog
		s.add("slow", "@every 10s", 0, func(ctx context.Context, r runInfo) error {
			l.add(r)
			<-release
			return nil
		})
		s.start()
		time.Sleep(35 * time.Second) // ticks at 10, 20, 30: the first still runs
		synctest.Wait()
		close(release)
		time.Sleep(10 * time.Second) // tick at 40 runs
		synctest.Wait()
		<-s.stop().Done()
		if l.len() != 2 {
			t.Errorf("runs = %d, want 2 (first, then after release)", l.len())
		}
		if got := testutil.ToFloat64(m.RunsSkipped.WithLabelValues("slow", "overlap")); got != 2 {
			t.Errorf("skipped = %v, want 2", got)
		}
	})
}

func TestSchedulerRecoversPanicAndCountsErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m := newTestScheduler(t.Context())
		n := 0
		s.add("bad", "@every 10s", 0, func(context.Context, runInfo) error {
			n++
			if n == 1 {
				panic("boom")
			}
			return errors.New("failed")
		})
		s.start()
		time.Sleep(25 * time.Second)
		synctest.Wait()
		<-s.stop().Done()
		if p, e := testutil.ToFloat64(m.Runs.WithLabelValues("bad", "panic")), testutil.ToFloat64(m.Runs.WithLabelValues("bad", "error")); p != 1 || e != 1 {
			t.Errorf("panic runs %v, error runs %v; want 1 and 1", p, e)
		}
	})
}

func TestRunDeadlineAndJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newTestScheduler(t.Context())
		var deadline time.Duration
		var l runLog
		const off = 7*time.Minute + 13*time.Second
		s.add("j", "@every 1h", off, func(ctx context.Context, r runInfo) error {
			d, _ := ctx.Deadline()
			deadline = time.Until(d)
			l.add(r)
			return nil
		})
		start := time.Now()
		s.start()
		time.Sleep(time.Hour + 10*time.Minute)
		synctest.Wait()
		<-s.stop().Done()
		if l.len() != 1 || l.at[0].Sub(start).Round(time.Second) != time.Hour+off.Round(time.Second) {
			t.Errorf("run at %v, want 1h + offset %v", l.at, off)
		}
		if deadline != 15*time.Minute {
			t.Errorf("deadline = %v, want the 15m cap for an hourly policy", deadline)
		}
	})
}

func TestSchedulerAddRejectsBadSpecAndReplaces(t *testing.T) {
	s, _ := newTestScheduler(context.Background())
	if err := s.add("x", "every minute", 0, nil); err == nil {
		t.Error("bad spec accepted")
	}
	noop := func(context.Context, runInfo) error { return nil }
	s.add("x", "@hourly", 0, noop)
	s.add("x", "@daily", 0, noop)
	if len(s.cron.Entries()) != 1 {
		t.Errorf("entries = %d, want the replaced one only", len(s.cron.Entries()))
	}
	s.remove("x")
	if len(s.cron.Entries()) != 0 || !s.next("x").IsZero() {
		t.Error("remove left an entry")
	}
}

func TestLateness(t *testing.T) {
	every, err := cronParser.Parse("@every 1m")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		tick       time.Time
		wantLate   time.Duration
		wantMissed int
	}{
		{"on time", base, 0, 0},
		{"early", base.Add(-time.Second), 0, 0},
		{"a little late", base.Add(1500 * time.Millisecond), 1500 * time.Millisecond, 0},
		{"after a 5 minute suspension", base.Add(5*time.Minute + 10*time.Second), 5*time.Minute + 10*time.Second, 5},
	}
	for _, c := range cases {
		late, missed := lateness(every, base, c.tick)
		if late != c.wantLate || missed != c.wantMissed {
			t.Errorf("%s: late %v missed %d, want %v %d", c.name, late, missed, c.wantLate, c.wantMissed)
		}
	}
	if late, missed := lateness(every, time.Time{}, base); late != 0 || missed != 0 {
		t.Errorf("no expectation yet: %v %d", late, missed)
	}
}

func TestLateTickIsCounted(t *testing.T) {
	s, m := newTestScheduler(context.Background())
	s.add("p", "@every 1m", 0, func(context.Context, runInfo) error { return nil })
	e := s.entries["p"]
	e.checkLate(e.expected.Add(3*time.Minute + 5*time.Second))
	if late, missed := testutil.ToFloat64(m.RunsSkipped.WithLabelValues("p", "late")), testutil.ToFloat64(m.RunsSkipped.WithLabelValues("p", "missed")); late != 1 || missed != 3 {
		t.Errorf("late %v missed %v, want 1 and 3", late, missed)
	}
}

// TestSchedulerStalled: a tick more than a minute overdue with no run in
// progress is a stalled scheduler (the watchdog is then not pinged); a run
// in progress, or a tick due soon, is not.
func TestSchedulerStalled(t *testing.T) {
	s := newScheduler(context.Background(), slog.New(slog.DiscardHandler), NewMetrics(nil))
	if err := s.add("p", "@every 1m", 0, func(context.Context, runInfo) error { return nil }); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	e := s.entries["p"]
	e.due.Store(now.Add(-30 * time.Second).UnixNano())
	if got := s.stalled(now); got != "" {
		t.Errorf("30 s overdue: stalled = %q, want none", got)
	}
	e.due.Store(now.Add(-2 * time.Minute).UnixNano())
	if got := s.stalled(now); got != "p" {
		t.Errorf("2 min overdue: stalled = %q, want p", got)
	}
	e.running.Store(true)
	if got := s.stalled(now); got != "" {
		t.Errorf("2 min overdue with a run in progress: stalled = %q, want none", got)
	}
}

// TestTriggeredRunsFollowTheOverlapRule fires a trigger while a scheduled
// run runs: the triggered run starts when that run ends, once however
// often the trigger fired meanwhile; a trigger fired while idle runs at
// once; none starts once the scheduler stopped.
func TestTriggeredRunsFollowTheOverlapRule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newTestScheduler(t.Context())
		var l runLog
		release := make(chan struct{})
		fn := func(ctx context.Context, r runInfo) error {
			l.add(r)
			if !r.Triggered {
				<-release // the scheduled run runs until released
			}
			return nil
		}
		if err := s.add("p", "@every 1m", 0, fn); err != nil {
			t.Fatal(err)
		}
		s.start()
		time.Sleep(61 * time.Second) // the tick at 1m runs, and waits
		synctest.Wait()
		s.fire("p")
		s.fire("p")
		synctest.Wait()
		if l.len() != 1 {
			t.Fatalf("runs = %d while the scheduled run runs, want 1", l.len())
		}
		close(release)
		synctest.Wait()
		if l.len() != 2 || !l.runs[1].Triggered || l.runs[1].ID == l.runs[0].ID {
			t.Fatalf("runs %+v, want the scheduled run then one triggered run", l.runs)
		}
		s.fire("p")
		synctest.Wait()
		if l.len() != 3 || !l.runs[2].Triggered {
			t.Fatalf("runs = %d, want a triggered run at once when idle", l.len())
		}
		<-s.stop().Done()
		s.fire("p")
		synctest.Wait()
		if l.len() != 3 {
			t.Fatalf("runs = %d, want no run after stop", l.len())
		}
	})
}

// TestOverlapIsNotAlsoLate runs a policy whose run outlasts three of its
// ticks: the three are counted as overlaps, and the tick after the run is
// on time, neither late nor after missed slots (they had their ticks).
func TestOverlapIsNotAlsoLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m := newTestScheduler(t.Context())
		var l runLog
		first := true
		if err := s.add("p", "@every 10s", 0, func(_ context.Context, r runInfo) error {
			l.add(r)
			if first {
				first = false
				time.Sleep(35 * time.Second) // outlasts the ticks at 20, 30 and 40 s
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		s.start()
		time.Sleep(51 * time.Second) // ticks at 10 s (the long run), 20, 30, 40 (skipped), 50 s
		synctest.Wait()
		<-s.stop().Done()
		if l.len() != 2 {
			t.Fatalf("runs = %d, want 2", l.len())
		}
		for reason, want := range map[string]float64{"overlap": 3, "late": 0, "missed": 0} {
			if got := testutil.ToFloat64(m.RunsSkipped.WithLabelValues("p", reason)); got != want {
				t.Errorf("skipped %s = %v, want %v", reason, got, want)
			}
		}
	})
}
