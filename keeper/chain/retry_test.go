package chain

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
)

// flakyServer answers 503 to its first fails requests, then passes them to next.
type flakyServer struct {
	mu    sync.Mutex
	fails int
	n     int
	next  http.Handler
}

func (s *flakyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.n++
	fail := s.n <= s.fails
	s.mu.Unlock()
	if fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	s.next.ServeHTTP(w, r)
}

// TestRetryRounds: with one endpoint, a transient failure is tried again
// after a backoff, up to the configured rounds; a terminal one is not.
func TestRetryRounds(t *testing.T) {
	tests := []struct {
		name     string
		fails    int
		handler  http.Handler // instead of a fake chain after the failures
		wantErr  bool
		requests int
		waited   time.Duration // at least, by the backoff of the rounds
	}{
		{name: "two 503s then an answer", fails: 2, requests: 3, waited: 100*time.Millisecond + 200*time.Millisecond},
		{name: "503 every time", fails: 100, wantErr: true, requests: 3, waited: 300 * time.Millisecond},
		{name: "terminal error once", handler: rpcErrorServer(-32602, "Invalid params"), wantErr: true, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fc := newFakeChain(150)
				wallet := solana.NewWallet().PublicKey()
				fc.accounts[wallet] = &Account{Lamports: 9}
				srv := &flakyServer{fails: tt.fails, next: fc}
				if tt.handler != nil {
					srv.next = tt.handler
				}
				c, err := New(Options{
					RPCURLs:    []string{"http://node.test/"},
					Retry:      Retry{Rounds: 3, Base: 200 * time.Millisecond, Max: time.Second},
					HTTPClient: &http.Client{Transport: memTransport{"node.test": srv}},
				})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				got, err := c.Balance(t.Context(), wallet)
				took := time.Since(start)
				if (err != nil) != tt.wantErr || (err == nil && got != 9) {
					t.Fatalf("balance %d, err %v; want error %v", got, err, tt.wantErr)
				}
				if srv.n != tt.requests {
					t.Errorf("%d requests, want %d", srv.n, tt.requests)
				}
				if took < tt.waited || took > 3*time.Second {
					t.Errorf("took %v, want the backoff of the rounds (at least %v, bounded)", took, tt.waited)
				}
			})
		})
	}
}

func TestRetryBackoffBounds(t *testing.T) {
	r := Retry{Rounds: 5, Base: 100 * time.Millisecond, Max: 300 * time.Millisecond}
	for n, hi := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 300 * time.Millisecond, 9: 300 * time.Millisecond} {
		for range 50 {
			if d := r.backoff(n); d < hi/2 || d > hi {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, hi/2, hi)
			}
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 27, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"7", 7 * time.Second}, {" 2 ", 2 * time.Second}, {"0", 0}, {"-3", 0}, {"1.5", 0}, {"soon", 0},
		{"Fri, 27 Nov 2026 03:04:35 GMT", 30 * time.Second},
		{"Fri, 27 Nov 2026 03:00:00 GMT", 0},
		{"86400", maxRetryAfter}, {"99999999999999999999", 0},
		{"Sat, 28 Nov 2026 03:04:05 GMT", maxRetryAfter},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
