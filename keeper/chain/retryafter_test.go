package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/internal/pipenet"
	"github.com/keeper-project/keeper/keeper/chain"
)

// These tests run inside synctest bubbles on the in-memory network: every
// wait below is virtual time.

// pausing is a JSON-RPC node that answers its first requests 429 with the
// given Retry-After values, then every request with the result 42, and
// records when each request arrived.
type pausing struct {
	pauses []string

	mu sync.Mutex
	at []time.Time
}

// ServeHTTP implements http.Handler.
func (s *pausing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.at)
	s.at = append(s.at, time.Now())
	s.mu.Unlock()
	if n < len(s.pauses) {
		w.Header().Set("Retry-After", s.pauses[n])
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":42}`, req.ID)
}

// arrivals returns when the requests so far arrived.
func (s *pausing) arrivals() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...)
}

// pausingClient serves each node on n (as a.test, b.test, …) and returns a
// client of them, in order, with the API key in every URL.
func pausingClient(t *testing.T, nodes ...*pausing) (*chain.Client, *logBuffer) {
	t.Helper()
	n := &pipenet.Network{}
	var urls []string
	for i, nd := range nodes {
		urls = append(urls, serve(t, n, string(rune('a'+i))+".test", nd)+"/?api-key="+apiKey)
	}
	logs := &logBuffer{}
	c := newClient(t, chain.Options{
		RPCURLs: urls, HTTPClient: n.Client(),
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return c, logs
}

// TestRetryAfterWaitedOut: a node that answers 429 with Retry-After is
// asked again only once the pause is over, however the pause is written,
// and a pause longer than a minute is cut to one.
func TestRetryAfterWaitedOut(t *testing.T) {
	tests := []struct {
		name  string
		pause func(now time.Time) string
		want  time.Duration
	}{
		{"seconds", func(time.Time) string { return "3" }, 3 * time.Second},
		{"http date", func(now time.Time) string { return now.Add(5 * time.Second).UTC().Format(http.TimeFormat) }, 5 * time.Second},
		{"a day, cut to a minute", func(time.Time) string { return "86400" }, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				node := &pausing{pauses: []string{tt.pause(time.Now())}}
				c, _ := pausingClient(t, node)
				if slot, err := c.Slot(t.Context()); err != nil || slot != 42 {
					t.Fatalf("Slot = %d, %v; want 42 after the pause", slot, err)
				}
				at := node.arrivals()
				if len(at) != 2 {
					t.Fatalf("%d requests, want the 429 and one more", len(at))
				}
				if gap := at[1].Sub(at[0]); gap < tt.want || gap >= tt.want+time.Second {
					t.Errorf("asked again %v after the 429, want %v", gap, tt.want)
				}
			})
		})
	}
}

// TestRetryAfterPastDeadline: a pause that would outlast the caller's
// deadline is not waited for: the 429 is returned at once.
func TestRetryAfterPastDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		node := &pausing{pauses: []string{"10"}}
		c, logs := pausingClient(t, node)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.Slot(ctx)
		if took := time.Since(start); took != 0 {
			t.Errorf("returned after %v, want at once", took)
		}
		he, ok := errors.AsType[*chain.HTTPError](err)
		if !ok || he.Status != http.StatusTooManyRequests || he.RetryAfter != 10*time.Second || !chain.Retryable(err) ||
			!strings.Contains(err.Error(), "http status 429 Too Many Requests (retry after 10s)") {
			t.Fatalf("err = %v, want the retryable 429 asking for 10 s", err)
		}
		if n := len(node.arrivals()); n != 1 {
			t.Errorf("%d requests, want only the one answered 429", n)
		}
		if strings.Contains(err.Error(), apiKey) || strings.Contains(logs.String(), apiKey) {
			t.Errorf("the API key was printed: %v", err)
		}
	})
}

// TestRetryAfterHoldsOtherCalls: while one call waits out a node's
// Retry-After, another call on the same client does not ask the node
// either: it waits for the pause to end, or, when its deadline comes
// first, fails at once without sending anything.
func TestRetryAfterHoldsOtherCalls(t *testing.T) {
	tests := []struct {
		name     string
		timeout  time.Duration // of the second call; 0: none
		wantErr  bool
		requests int
	}{
		{name: "waits for the pause", requests: 3},
		{name: "deadline before the pause ends", timeout: time.Second, wantErr: true, requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				node := &pausing{pauses: []string{"3"}}
				c, _ := pausingClient(t, node)
				start := time.Now()
				first := make(chan error, 1)
				go func() {
					_, err := c.Slot(t.Context())
					first <- err
				}()
				time.Sleep(time.Second) // the first call got its 429 and waits
				ctx := t.Context()
				if tt.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.timeout)
					defer cancel()
				}
				asked := time.Now()
				_, err := c.Slot(ctx)
				checkHeldError(t, err, tt.wantErr, time.Since(asked))
				if err := <-first; err != nil {
					t.Errorf("first call: %v", err)
				}
				at := node.arrivals()
				if len(at) != tt.requests {
					t.Errorf("%d requests, want %d", len(at), tt.requests)
				}
				for i, a := range at[1:] {
					if a.Sub(start) < 3*time.Second {
						t.Errorf("request %d arrived %v after the 429, inside its 3 s pause", i+2, a.Sub(start))
					}
				}
			})
		})
	}
}

// checkHeldError asserts that err is nil, or, if wantErr, the retryable
// error of a request not sent, naming the method and the redacted node,
// returned at once.
func checkHeldError(t *testing.T, err error, wantErr bool, took time.Duration) {
	t.Helper()
	if !wantErr {
		if err != nil {
			t.Errorf("second call: %v", err)
		}
		return
	}
	msg := fmt.Sprint(err)
	if !chain.Retryable(err) || !strings.Contains(msg, "getSlot on http://a.test:80/<secret>: not sent") || strings.Contains(msg, apiKey) {
		t.Errorf("second call: err = %v, want a retryable error naming getSlot and the redacted node, saying nothing was sent", err)
	}
	if took != 0 {
		t.Errorf("second call failed after %v, want at once", took)
	}
}

// TestRetryAfterPrefersAnotherEndpoint: a node inside the pause it asked
// for is tried after a healthy one, even once its failure no longer counts
// (30 s), until its pause (50 s) is over.
func TestRetryAfterPrefersAnotherEndpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		paused, healthy := &pausing{pauses: []string{"50"}}, &pausing{}
		c, _ := pausingClient(t, paused, healthy)
		begin := time.Now()
		for _, step := range []struct {
			at           time.Duration // since the start
			paused, good int           // requests each node has had after the call
		}{
			{0, 1, 1},
			{40 * time.Second, 1, 2},
			{55 * time.Second, 2, 2},
		} {
			time.Sleep(step.at - time.Since(begin))
			start := time.Now()
			if slot, err := c.Slot(t.Context()); err != nil || slot != 42 || time.Since(start) != 0 {
				t.Fatalf("at %v: Slot = %d, %v after %v; want 42 at once", step.at, slot, err, time.Since(start))
			}
			if p, g := len(paused.arrivals()), len(healthy.arrivals()); p != step.paused || g != step.good {
				t.Errorf("at %v: the paused node had %d requests, the healthy one %d; want %d and %d", step.at, p, g, step.paused, step.good)
			}
		}
	})
}
