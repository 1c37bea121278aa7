package api

import (
	"context"
	"errors"
	"github.com/keeper-project/keeper/keeper/market"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestRateLimiterPaces(t *testing.T) {
	tests := []struct {
		name      string
		limit     RateLimit
		calls     int
		wantTimes []time.Duration // start offset of each request
	}{
		{"burst 1", RateLimit{PerSecond: 2, Burst: 1}, 4, []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}},
		{"burst 3", RateLimit{PerSecond: 1, Burst: 3}, 5, []time.Duration{0, 0, 0, time.Second, 2 * time.Second}},
		{"default burst", RateLimit{PerSecond: 4}, 3, []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond}},
		{"unlimited", RateLimit{}, 3, []time.Duration{0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				var mu sync.Mutex
				var times []time.Duration
				f := &fakeAPI{respond: func(int, recorded) reply {
					mu.Lock()
					defer mu.Unlock()
					times = append(times, time.Since(start))
					return reply{Body: `[]`}
				}}
				c := newInProcess(t, f, nil, func(o *Options) { o.RateLimit = tc.limit })
				for range tc.calls {
					if _, err := c.Loops(t.Context(), market.LoopsQuery{}); err != nil {
						t.Fatal(err)
					}
				}
				if len(times) != len(tc.wantTimes) {
					t.Fatalf("times = %v", times)
				}
				for i := range times {
					if times[i] != tc.wantTimes[i] {
						t.Errorf("request %d at %v, want %v", i, times[i], tc.wantTimes[i])
					}
				}
			})
		})
	}
}

func TestRateLimiterRefills(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(RateLimit{PerSecond: 10, Burst: 2})
		for range 2 {
			if d := l.reserve(); d != 0 {
				t.Fatalf("burst token waited %v", d)
			}
		}
		time.Sleep(time.Second) // refills to the burst, not beyond
		for i, want := range []time.Duration{0, 0, 100 * time.Millisecond} {
			if d := l.reserve(); d != want {
				t.Errorf("reserve %d = %v, want %v", i, d, want)
			}
		}
	})
}

func TestRateLimiterContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(RateLimit{PerSecond: 1, Burst: 1})
		if err := l.wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		// The next token is 1 s away: a cancel after 200 ms ends the wait then and returns the token.
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(200 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		if err := l.wait(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("wait = %v, want context.Canceled", err)
		}
		if got := time.Since(start); got != 200*time.Millisecond {
			t.Errorf("cancel returned after %v, want 200ms", got)
		}
		// A deadline before the token returns at once.
		short, cancel2 := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel2()
		start = time.Now()
		if err := l.wait(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("wait = %v, want DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 0 {
			t.Errorf("deadline wait returned after %v, want at once", got)
		}
		// The released tokens mean the next waiter needs only the original second.
		start = time.Now()
		if err := l.wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 800*time.Millisecond {
			t.Errorf("next wait %v, want 800ms (1s after the first token)", got)
		}
	})
}
