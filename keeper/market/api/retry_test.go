package api

import (
	"context"
	"errors"
	"github.com/keeper-project/keeper/keeper/market"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// fastRetry is a deterministic policy: waits of 100 ms, 200 ms, 400 ms ... capped at 1 s.
var fastRetry = RetryPolicy{MaxAttempts: 4, BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, DisableJitter: true}

func TestBackoffBounds(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		rand func() float64
		want []time.Duration // attempts 1..6
	}{
		{"no jitter", nil, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 1000 * ms}},
		{"half", func() float64 { return 0.5 }, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms}},
		{"zero", func() float64 { return 0 }, []time.Duration{0, 0, 0, 0, 0, 0}},
		{"clamped high", func() float64 { return 7 }, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 1000 * ms}},
		{"clamped low", func() float64 { return -1 }, []time.Duration{0, 0, 0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := RetryPolicy{BaseBackoff: 100 * ms, MaxBackoff: time.Second, DisableJitter: tc.rand == nil, Rand: tc.rand}
			for i, want := range tc.want {
				if got := p.backoff(i + 1); got != want {
					t.Errorf("backoff(%d) = %v, want %v", i+1, got, want)
				}
			}
		})
	}
	huge := RetryPolicy{BaseBackoff: time.Second, MaxBackoff: time.Hour, DisableJitter: true}
	if got := huge.backoff(200); got != time.Hour {
		t.Errorf("backoff(200) = %v, want the cap (no overflow)", got)
	}
}

func TestReadRetries(t *testing.T) {
	ok := reply{Body: `[]`}
	unavailable := reply{Status: 503, Body: `{"error":{"code":503,"message":"busy"}}`}
	tests := []struct {
		name        string
		reps        []reply
		rand        func() float64
		wantCalls   int
		wantElapsed time.Duration
		wantStatus  int // 0: success
	}{
		{"succeeds on third", []reply{unavailable, unavailable, ok}, nil, 3, 300 * time.Millisecond, 0},
		{"gives up after max attempts", []reply{unavailable}, nil, 4, 700 * time.Millisecond, 503},
		{"full jitter scales waits", []reply{unavailable, unavailable, ok}, func() float64 { return 0.25 }, 3, 75 * time.Millisecond, 0},
		{"429 retried", []reply{{Status: 429}, ok}, nil, 2, 100 * time.Millisecond, 0},
		{"400 not retried", []reply{{Status: 400, Body: `{"error":{"code":400,"message":"bad"}}`}}, nil, 1, 0, 400},
		{"404 not retried", []reply{{Status: 404}}, nil, 1, 0, 404},
		{"409 not retried", []reply{{Status: 409}}, nil, 1, 0, 409},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeAPI{respond: sequence(tc.reps...)}
				var mu sync.Mutex
				var statuses []int
				c := newInProcess(t, f, nil, func(o *Options) {
					o.Retry = fastRetry
					if tc.rand != nil {
						o.Retry.DisableJitter, o.Retry.Rand = false, tc.rand
					}
					o.Observe = func(ep string, status int, _ time.Duration, _ error) {
						mu.Lock()
						defer mu.Unlock()
						statuses = append(statuses, status)
					}
				})
				start := time.Now()
				_, err := c.Loops(t.Context(), market.LoopsQuery{})
				elapsed := time.Since(start)
				if got := len(f.requests()); got != tc.wantCalls {
					t.Errorf("calls = %d, want %d", got, tc.wantCalls)
				}
				if elapsed != tc.wantElapsed {
					t.Errorf("elapsed = %v, want %v", elapsed, tc.wantElapsed)
				}
				if len(statuses) != tc.wantCalls {
					t.Errorf("observed %d attempts, want %d", len(statuses), tc.wantCalls)
				}
				checkStatus(t, err, tc.wantStatus)
			})
		})
	}
}

// checkStatus asserts success (want 0) or an *APIError of status want.
func checkStatus(t *testing.T, err error, want int) {
	t.Helper()
	if want == 0 {
		if err != nil {
			t.Errorf("err = %v, want success", err)
		}
		return
	}
	ae, ok := isAPIError(err)
	if !ok || ae.Status != want {
		t.Errorf("err = %v, want HTTP %d", err, want)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name   string
		header func(now time.Time) string
		want   time.Duration
	}{
		{"seconds", func(time.Time) string { return "5" }, 5 * time.Second},
		{"http date", func(now time.Time) string { return now.Add(10 * time.Second).UTC().Format(http.TimeFormat) }, 10 * time.Second},
		{"shorter than backoff", func(time.Time) string { return "0" }, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				f := &fakeAPI{respond: func(n int, _ recorded) reply {
					if n == 0 {
						return reply{Status: 429, Header: map[string]string{"Retry-After": tc.header(start)}}
					}
					return reply{Body: `[]`}
				}}
				c := newInProcess(t, f, nil, func(o *Options) { o.Retry = fastRetry })
				if _, err := c.Loops(t.Context(), market.LoopsQuery{}); err != nil {
					t.Fatal(err)
				}
				if got := time.Since(start); got != tc.want {
					t.Errorf("waited %v, want %v", got, tc.want)
				}
			})
		})
	}
}

func TestRetryStopsOnContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeAPI{respond: always(reply{Status: 503, Header: map[string]string{"Retry-After": "60"}})}
		c := newInProcess(t, f, nil, func(o *Options) { o.Retry = fastRetry })

		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		start := time.Now()
		_, err := c.Loops(ctx, market.LoopsQuery{})
		if got := time.Since(start); got != time.Second {
			t.Errorf("returned after %v, want 1s (at cancel)", got)
		}
		if !errors.Is(err, context.Canceled) || IsRetryable(err) {
			t.Errorf("err = %v, want context.Canceled, not retryable", err)
		}
		if _, ok := isAPIError(err); !ok {
			t.Errorf("err = %v, want the last APIError kept", err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("calls = %d, want 1", n)
		}
	})
}

func TestRetryGivesUpBeforeDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeAPI{respond: always(reply{Status: 503, Header: map[string]string{"Retry-After": "60"}})}
		c := newInProcess(t, f, nil, func(o *Options) { o.Retry = fastRetry })
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.Loops(ctx, market.LoopsQuery{})
		if got := time.Since(start); got != 0 {
			t.Errorf("returned after %v, want at once (the wait would pass the deadline)", got)
		}
		checkStatus(t, err, 503)
	})
}

func TestWriteRetriesKeepKeyAndBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tx := `{"message":"AQAB","signatures":[]}`
		f := &fakeAPI{respond: sequence(reply{Status: 500}, reply{Status: 502}, reply{Body: tx})}
		transportErr := func(n int) error { // the very first attempt dies with a connection reset
			if n == 0 {
				return &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
			}
			return nil
		}
		c := newInProcess(t, f, transportErr, func(o *Options) { o.Retry = fastRetry })
		got, err := c.ClaimFees(t.Context(), "act-1-1", market.ClaimFeesRequest{Loan: "L", PositionMint: "P"})
		if err != nil || got.Message != "AQAB" {
			t.Fatalf("ClaimFees = %v, %v", got, err)
		}
		reqs := f.requests()
		if len(reqs) != 3 {
			t.Fatalf("server saw %d requests, want 3 (plus one reset)", len(reqs))
		}
		for i, r := range reqs {
			if k := r.Header.Get("Idempotent-Key"); k != "act-1-1" {
				t.Errorf("request %d key = %q", i, k)
			}
			if r.Body != reqs[0].Body || r.Body != `{"loan":"L","positionMint":"P"}` {
				t.Errorf("request %d body = %s", i, r.Body)
			}
		}
	})
}

func TestWriteConflictNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeAPI{respond: always(reply{Status: 409, Body: `{"error":{"code":409,"message":"key reused"}}`})}
		c := newInProcess(t, f, nil, func(o *Options) { o.Retry = fastRetry })
		_, err := c.WithdrawFromStrategy(t.Context(), "k", market.WithdrawStrategyRequest{Strategy: "S", Amount: 5})
		if !errors.Is(err, ErrIdempotencyConflict) || !isTerminal(err) {
			t.Errorf("err = %v, want a terminal ErrIdempotencyConflict", err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("calls = %d, want 1", n)
		}
	})
}

func TestAttemptTimeoutRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		})
		var calls int
		var mu sync.Mutex
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls++
			n := calls
			mu.Unlock()
			if n == 1 {
				hang(w, r)
				return
			}
			_, _ = w.Write([]byte(`[]`))
		})
		c, err := New(Options{
			BaseURL: "http://market.test/v1", Timeout: 2 * time.Second, Retry: fastRetry,
			HTTPClient: &http.Client{Transport: &handlerTransport{h: mounted(h)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := c.Loops(t.Context(), market.LoopsQuery{}); err != nil {
			t.Fatalf("Loops: %v", err)
		}
		if got, want := time.Since(start), 2*time.Second+100*time.Millisecond; got != want {
			t.Errorf("elapsed %v, want %v (timeout + first backoff)", got, want)
		}
		if calls != 2 {
			t.Errorf("calls = %d, want 2", calls)
		}
	})
}
