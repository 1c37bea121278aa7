package keeper

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/journal"
)

// fakeLease is a shared journal's lease as one database would keep it,
// for one keeper under test; other keepers act on it through its fields.
type fakeLease struct {
	mu       sync.Mutex
	token    int64  // the lease's current term
	holder   string // its holder
	live     bool   // whether the current term's lease runs
	fence    int64  // what Fence last set
	resigned []int64
	down     bool // every call fails, as with the database cut off
}

func (f *fakeLease) Shared() bool { return true }

func (f *fakeLease) Campaign(_ context.Context, holder string, ttl time.Duration) (journal.Lease, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return journal.Lease{}, false, errors.New("connection refused")
	}
	if f.live {
		return journal.Lease{Token: f.token, Holder: f.holder, Remaining: time.Second}, false, nil
	}
	f.token++
	f.holder, f.live = holder, true
	return journal.Lease{Token: f.token, Holder: holder, Remaining: ttl}, true, nil
}

func (f *fakeLease) Renew(_ context.Context, token int64, _ time.Duration) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return false, errors.New("connection refused")
	}
	return token == f.token, nil
}

func (f *fakeLease) Resign(_ context.Context, token int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resigned = append(f.resigned, token)
	if token == f.token {
		f.live = false
	}
	return nil
}

func (f *fakeLease) Fence(token int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fence = token
}

// takeOver makes another keeper the holder of the next term.
func (f *fakeLease) takeOver(holder string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.token++
	f.holder, f.live = holder, true
}

func (f *fakeLease) fenced() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fence
}

func (f *fakeLease) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// testLeadership returns a leadership of f with a 6 s lease whose recovery
// waits for settled (nil: returns at once), logging into logs.
func testLeadership(f *fakeLease, settled <-chan struct{}, logs *strings.Builder) *leadership {
	return &leadership{j: f, ttl: 6 * time.Second, holder: "keeper under test", clock: time.Now, standby: time.Now(),
		metrics: NewMetrics(nil), logger: slog.New(slog.NewTextHandler(logs, nil)),
		recover: func(ctx context.Context) error {
			if settled != nil {
				select {
				case <-settled:
				case <-ctx.Done():
				}
			}
			return nil
		}}
}

func TestLeadershipSettlesBeforeItLeads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeLease{}
		settled := make(chan struct{})
		var logs strings.Builder
		l := testLeadership(f, settled, &logs)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { l.run(ctx); close(done) }()
		synctest.Wait()
		if role, term := l.role(); l.leading() || role != "settling" || term != 1 || f.fenced() != 1 {
			t.Fatalf("while settling: leading %v, role %s term %d, fence %d; want settling term 1, fenced, not acting",
				l.leading(), role, term, f.fenced())
		}
		close(settled)
		synctest.Wait()
		if !l.leading() || testutil.ToFloat64(l.metrics.Leader) != 1 || testutil.ToFloat64(l.metrics.LeaderTerms) != 1 {
			t.Fatalf("after settling: leading %v, keeper_leader %v", l.leading(), testutil.ToFloat64(l.metrics.Leader))
		}
		// Renewals keep it leading well past one lease.
		time.Sleep(time.Minute)
		if !l.leading() {
			t.Fatal("a renewed lease stopped leading")
		}
		cancel()
		<-done
		if l.leading() || len(f.resigned) != 1 || f.resigned[0] != 1 || f.fenced() != 0 {
			t.Fatalf("after shutdown: leading %v, resigned %v, fence %d; want term 1 resigned and writes refused",
				l.leading(), f.resigned, f.fenced())
		}
	})
}

func TestLeadershipStandsByAndTakesOverALapsedLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeLease{token: 4, holder: "pid 1 on other", live: true}
		var logs strings.Builder
		l := testLeadership(f, nil, &logs)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go l.run(ctx)
		time.Sleep(10 * time.Second) // campaigns every 2 s, and loses
		synctest.Wait()
		if role, _ := l.role(); l.leading() || role != "standby" || f.fenced() != 0 {
			t.Fatalf("standby: leading %v, role %s, fence %d", l.leading(), role, f.fenced())
		}
		if n := strings.Count(logs.String(), "Standing by: another keeper leads"); n != 1 || !strings.Contains(logs.String(), "pid 1 on other") {
			t.Fatalf("standby logged %d times (want once per term, naming the leader):\n%s", n, logs.String())
		}
		f.mu.Lock()
		f.live = false // the leader died: its lease lapses
		f.mu.Unlock()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if _, term := l.role(); !l.leading() || term != 5 || f.fenced() != 5 {
			t.Fatalf("after the lease lapsed: leading %v, term %d, fence %d; want term 5", l.leading(), term, f.fenced())
		}
	})
}

func TestLeadershipStepsDownWhenDeposed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeLease{}
		var logs strings.Builder
		l := testLeadership(f, nil, &logs)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go l.run(ctx)
		synctest.Wait()
		if !l.leading() {
			t.Fatal("did not lead an empty lease")
		}
		f.takeOver("the other keeper")
		time.Sleep(2 * time.Second) // the next renewal
		synctest.Wait()
		if l.leading() || f.fenced() != 0 || testutil.ToFloat64(l.metrics.Leader) != 0 {
			t.Fatalf("deposed: leading %v, fence %d, keeper_leader %v", l.leading(), f.fenced(), testutil.ToFloat64(l.metrics.Leader))
		}
		if !strings.Contains(logs.String(), "Deposed: another keeper took the lease") {
			t.Fatalf("log:\n%s", logs.String())
		}
	})
}

// A keeper cut off from the database, or paused, stops acting when its
// lease runs out by its own clock, before another keeper can take it.
func TestLeadershipStopsActingWhenItsLeaseRunsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeLease{}
		var logs strings.Builder
		l := testLeadership(f, nil, &logs)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go l.run(ctx)
		synctest.Wait()
		f.setDown(true)
		time.Sleep(5 * time.Second) // renewals fail; the lease renewed at 0 s still runs
		synctest.Wait()
		if !l.leading() {
			t.Fatal("stopped leading before the lease ran out")
		}
		time.Sleep(time.Second + time.Millisecond)
		if l.leading() {
			t.Fatal("still leading after the lease ran out")
		}
		synctest.Wait()
		if !strings.Contains(logs.String(), "Cannot renew the lease; trying again") {
			t.Fatalf("log:\n%s", logs.String())
		}
		time.Sleep(time.Second) // the renewal due at 6 s found the lease run out and gave the term up
		synctest.Wait()
		if role, _ := l.role(); role != "standby" || f.fenced() != 0 || !strings.Contains(logs.String(), "Lease ran out before it could be renewed") {
			t.Fatalf("role %s, fence %d, log:\n%s", role, f.fenced(), logs.String())
		}
	})
}

// A pass longer than the lease keeps it: once renews while the pass runs.
func TestRunOnceKeepsTheLeaseThroughALongPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeLease{}
		var logs strings.Builder
		l := testLeadership(f, nil, &logs)
		resign, err := l.once(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(15 * time.Minute) // the longest pass: a policy waits for its actions to settle
		if !l.leading() {
			t.Fatal("a pass stopped leading while it ran")
		}
		f.takeOver("a daemon")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if l.leading() || f.fenced() != 0 {
			t.Fatalf("a deposed pass still leads (%v) or writes (fence %d)", l.leading(), f.fenced())
		}
		resign()
		if len(f.resigned) != 0 {
			t.Fatalf("a deposed pass resigned %v", f.resigned)
		}
	})
}

func TestRunOnceNeedsTheLease(t *testing.T) {
	f := &fakeLease{token: 7, holder: "pid 9 on b", live: true}
	var logs strings.Builder
	l := testLeadership(f, nil, &logs)
	if _, err := l.once(t.Context()); !errors.Is(err, journal.ErrNotLeader) || !strings.Contains(err.Error(), "term 7, pid 9 on b") {
		t.Fatalf("once while another leads: %v, want an error naming the leader", err)
	}
	f.live = false
	resign, err := l.once(t.Context())
	if err != nil || f.fenced() != 8 || !l.leading() {
		t.Fatalf("once over a lapsed lease: %v, fence %d, leading %v", err, f.fenced(), l.leading())
	}
	resign()
	if len(f.resigned) != 1 || f.resigned[0] != 8 || f.fenced() != 0 {
		t.Fatalf("resigned %v, fence %d", f.resigned, f.fenced())
	}
}
