package api

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// TestA429SlowsEveryRequestDown: at 10 requests a second, a 429 with
// Retry-After: 2 holds every request (not only the one retried) for two
// seconds, halves the pace (to climb back by a thirty-second of the
// configured rate with each answer that is not a 429), and answers that are not 429s bring it back
// to the configured rate, never above.
func TestA429SlowsEveryRequestDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var times []time.Duration
		f := &fakeAPI{respond: func(n int, _ recorded) reply {
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Since(start))
			if n == 2 {
				return reply{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: `{"error":{"code":429,"message":"slow down"}}`}
			}
			return reply{Body: `[]`}
		}}
		c := newInProcess(t, f, nil, func(o *Options) {
			o.RateLimit = RateLimit{PerSecond: 10, Burst: 1}
			o.Retry = RetryPolicy{MaxAttempts: 2, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
		})
		for range 40 {
			if _, err := c.Loops(t.Context(), market.LoopsQuery{}); err != nil {
				t.Fatal(err)
			}
		}
		if got := times[3] - times[2]; got < 2*time.Second {
			t.Errorf("the request after the 429 came %v after it, want the 2 s of Retry-After at least", got)
		}
		if got := times[4] - times[3]; got < 150*time.Millisecond {
			t.Errorf("requests %v apart after the 429, want about 200ms (half of 10 a second, climbing back)", got)
		}
		if rate := c.t.limiter.current(); rate != 10 {
			t.Errorf("pace %v after 37 good answers, want back at the 10 a second configured", rate)
		}
		if got := times[39] - times[38]; got != 100*time.Millisecond {
			t.Errorf("last requests %v apart, want 100ms", got)
		}
	})
}

// TestRepeated429sFloorThePace: 429s that come together (the requests in
// flight) halve the pace once; however many come a second apart, it falls
// to a sixteenth of the configured rate, no lower.
func TestRepeated429sFloorThePace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(RateLimit{PerSecond: 16, Burst: 1})
		for range 4 {
			l.throttled(0)
		}
		if got := l.current(); got != 8 {
			t.Errorf("pace %v after four 429s at once, want 8 (halved once)", got)
		}
		for range 10 {
			time.Sleep(time.Second)
			l.throttled(0)
		}
		if got := l.current(); got != 1 {
			t.Errorf("pace %v after ten more 429s a second apart, want 1 (16/16)", got)
		}
		time.Sleep(time.Second)
		if _, fell := l.throttled(0); fell {
			t.Error("a 429 at the floor reported a fall")
		}
	})
}

// TestLoanPagesAskForTheConfiguredPageSizeAndFallBack: a walk asks for
// Options.PageSize loans a page; a market that refuses page 0 of that size
// (400) is asked again with half as many, down to what it takes, and the
// client's later walks start from that size; a query's own page size is
// never changed.
func TestLoanPagesAskForTheConfiguredPageSizeAndFallBack(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, size := pageOf(t, r)
		mu.Lock()
		sizes = append(sizes, size)
		mu.Unlock()
		if size > 250 {
			return reply{Status: 400, Body: `{"error":{"code":400,"message":"pageSize too large"}}`}
		}
		return reply{Body: loansPageJSON(page, 1, 1, 1, "A")}
	}}
	c := newServer(t, f, func(o *Options) { o.PageSize = 1000 })
	visit := func(int, *market.LoansPage) error { return nil }
	if err := c.LoanPages(bg(t), market.LoansQuery{}, visit); err != nil {
		t.Fatal(err)
	}
	if err := c.LoanPages(bg(t), market.LoansQuery{}, visit); err != nil {
		t.Fatal(err)
	}
	if want := []int{1000, 500, 250, 250}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Errorf("page sizes asked %v, want %v", sizes, want)
	}
	if size := c.loans.size.Load(); size != 250 {
		t.Errorf("client's page size %d, want the 250 the market took", size)
	}
	sizes = nil
	err := c.LoanPages(bg(t), market.LoansQuery{PageSize: new(400)}, visit)
	if err == nil || !strings.Contains(err.Error(), "400") || fmt.Sprint(sizes) != "[400]" {
		t.Errorf("a query's own page size: %v after asking %v; want the refusal, asked once", err, sizes)
	}
}

// TestLoanPagesRequestPagesConcurrentlyWithinTheRateLimit: with eight
// pages in flight and 20 requests a second, a walk of 41 pages whose
// answers take 400 ms each takes about 3 s (page 0, then 40 requests at 20
// a second, then the last answer), not 41 × 0.4 s: the walk
// keeps the allowance busy while answers travel, and never exceeds it.
func TestLoanPagesRequestPagesConcurrentlyWithinTheRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var at []time.Duration
		f := &fakeAPI{respond: func(_ int, r recorded) reply {
			mu.Lock()
			at = append(at, time.Since(start))
			mu.Unlock()
			time.Sleep(400 * time.Millisecond)
			page, _ := pageOf(t, r)
			return reply{Body: loansPageJSON(page, 41, 41, 1, fmt.Sprint("L", page))}
		}}
		c := newInProcess(t, f, nil, func(o *Options) {
			o.RateLimit = RateLimit{PerSecond: 20, Burst: 1}
			o.PagesInFlight = 8
		})
		n := 0
		if err := c.LoanPages(t.Context(), market.LoansQuery{}, func(int, *market.LoansPage) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if n != 41 || took > 3500*time.Millisecond {
			t.Errorf("%d pages in %v, want 41 in about 3 s", n, took)
		}
		for i := 1; i < len(at); i++ {
			if d := at[i] - at[i-1]; d < 50*time.Millisecond {
				t.Errorf("requests %d and %d %v apart, closer than the limit's 50ms", i-1, i, d)
			}
		}
	})
}
