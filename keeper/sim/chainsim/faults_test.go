package chainsim

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/internal/pipenet"
	"github.com/keeper-project/keeper/keeper/sim/inject"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

func TestHTTPFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault inject.Fault
		check func(t *testing.T, err error)
	}{
		{"server error", inject.FaultServerError, func(t *testing.T, err error) {
			var herr *jsonrpc.HTTPError
			if !errors.As(err, &herr) || herr.Code != 502 {
				t.Fatalf("err = %v, want HTTP 502", err)
			}
		}},
		{"rate limit", inject.FaultRateLimit, func(t *testing.T, err error) {
			var herr *jsonrpc.HTTPError
			if !errors.As(err, &herr) || herr.Code != 429 {
				t.Fatalf("err = %v, want HTTP 429", err)
			}
		}},
		{"truncated body", inject.FaultTruncate, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "could not decode body") {
				t.Fatalf("err = %v, want a body decoding error", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{Faults: Faults{ServerErrorStatus: 502}})
			cl := rpcClient(t, c)
			if err := c.InjectFaults(ServiceRPC, "getSlot", tt.fault); err != nil {
				t.Fatalf("InjectFaults: %v", err)
			}
			_, err := cl.GetSlot(context.Background(), rpc.CommitmentProcessed)
			tt.check(t, err)
			if _, err := cl.GetSlot(context.Background(), rpc.CommitmentProcessed); err != nil {
				t.Fatalf("the call after the scripted fault failed: %v", err)
			}
		})
	}
}

func TestRateLimitRetryAfterHeader(t *testing.T) {
	c, _ := newChain(t, Options{Faults: Faults{RetryAfter: 1500 * time.Millisecond, Jito: inject.ServiceFaults{All: inject.MethodFaults{Script: []inject.Fault{inject.FaultRateLimit}}}}})
	url, hc := serve(t, c.Jito().Handler())
	resp, err := hc.Post(url+"/api/v1/bundles", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"getTipAccounts","params":[]}`))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d Retry-After %q, want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestTruncatedSendStillLands(t *testing.T) {
	c, _ := newChain(t, Options{})
	cl := rpcClient(t, c)
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	_ = c.InjectFaults(ServiceRPC, "sendTransaction", inject.FaultTruncate)
	if _, err := cl.SendTransactionWithOpts(context.Background(), transfer(t, alice, bob, 10, latest(c)), rpc.TransactionOpts{SkipPreflight: true}); err == nil {
		t.Fatalf("a truncated answer decoded")
	}
	if c.State.Balance(bob) != 10 {
		t.Fatalf("the transaction behind a truncated answer did not land")
	}
}

func TestNeverLandFaults(t *testing.T) {
	f := newBundleFixture(t)
	cl := rpcClient(t, f.c)
	ctx := context.Background()
	_ = f.c.InjectFaults(ServiceRPC, "sendTransaction", inject.FaultNeverLand)
	_ = f.c.InjectFaults(ServiceJito, "sendBundle", inject.FaultNeverLand)
	tx := transfer(t, f.alice, f.carol, 10, latest(f.c))
	sig, err := cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
	if err != nil || sig != tx.Signatures[0] {
		t.Fatalf("send = %s, %v; want the signature", sig, err)
	}
	tip := transfer(t, f.alice, f.tip, 5000, latest(f.c))
	id, err := f.send(t, []*solana.Transaction{tip}, true)
	if err != nil {
		t.Fatalf("sendBundle: %v", err)
	}
	advanceSlots(f.clk, 10)
	if st, _ := cl.GetSignatureStatuses(ctx, true, sig); st.Value[0] != nil || f.c.State.Balance(f.carol) != 0 {
		t.Fatalf("a never-land transaction landed")
	}
	if st, _ := f.inflight(t, id); st != "Pending" {
		t.Fatalf("dropped bundle = %s, want Pending", st)
	}
	if _, ok := f.c.Ledger.Transaction(tip.Signatures[0]); ok {
		t.Fatalf("a dropped bundle landed")
	}
	if again, err := f.send(t, []*solana.Transaction{tip}, true); err != nil || again != id {
		t.Fatalf("resend = %q, %v", again, err)
	}
	advanceSlots(f.clk, 1)
	if st, _ := f.inflight(t, id); st != "Landed" {
		t.Fatalf("resent bundle = %s, want Landed", st)
	}
	_ = f.c.InjectFaults(ServiceJito, "sendBundle", inject.FaultNeverLand)
	other, err := f.send(t, []*solana.Transaction{transfer(t, f.alice, f.tip, 6000, latest(f.c))}, true)
	if err != nil {
		t.Fatalf("sendBundle: %v", err)
	}
	advanceSlots(f.clk, inflightLookbackSlots+1)
	if st, _ := f.inflight(t, other); st != "Invalid" {
		t.Fatalf("dropped bundle after the lookback = %s, want Invalid", st)
	}
}

func TestStallFault(t *testing.T) {
	c, clk := newChain(t, Options{Faults: Faults{StallSlots: 5, RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{"getSlot": {Script: []inject.Fault{inject.FaultNone, inject.FaultStall}}}}}})
	cl := rpcClient(t, c)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := cl.GetSlot(ctx, rpc.CommitmentProcessed); err != nil {
			t.Fatalf("GetSlot: %v", err)
		}
	}
	advanceSlots(clk, 5)
	if h, _ := cl.GetBlockHeight(ctx, rpc.CommitmentProcessed); h != 0 {
		t.Fatalf("height = %d during the stall, want 0", h)
	}
	advanceSlots(clk, 1)
	if h, _ := cl.GetBlockHeight(ctx, rpc.CommitmentProcessed); h != 1 {
		t.Fatalf("height = %d after the stall, want 1", h)
	}
}

// withPipeServer runs f inside a synctest bubble with c's RPC service
// served over an in-memory listener.
func withPipeServer(t *testing.T, opts Options, f func(t *testing.T, c *Chain, cl *rpc.Client)) {
	synctest.Test(t, func(t *testing.T) { withPipeServerInBubble(t, opts, f) })
}

func TestTimeoutFaultHangsUntilTheClientGivesUp(t *testing.T) {
	opts := Options{Faults: Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Script: []inject.Fault{inject.FaultTimeout}}}}}
	withPipeServer(t, opts, func(t *testing.T, c *Chain, cl *rpc.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second)
		defer cancel()
		start := time.Now()
		_, err := cl.GetHealth(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 7*time.Second {
			t.Fatalf("err = %v after %v, want the client's deadline after 7s", err, time.Since(start))
		}
		if _, err := cl.GetHealth(context.Background()); err != nil {
			t.Fatalf("next call: %v", err)
		}
	})
}

func TestTimeoutFaultEndsWhenTheServerStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := New(Options{Faults: Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Script: []inject.Fault{inject.FaultTimeout}}}}})
		ln := pipenet.NewListener("pipe")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.RPC().Serve(ctx, ln) }()
		hc := &http.Client{Transport: &http.Transport{DialContext: ln.DialContext}}
		cl := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts("http://pipe/", &jsonrpc.RPCClientOpts{HTTPClient: hc}))
		callErr := make(chan error, 1)
		go func() { _, err := cl.GetHealth(context.Background()); callErr <- err }()
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if err := <-callErr; err == nil {
			t.Fatalf("the hanging call succeeded")
		}
		hc.CloseIdleConnections()
		ln.Close()
	})
}

func TestLatencyFault(t *testing.T) {
	t.Run("real clock", func(t *testing.T) {
		opts := Options{Faults: Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{"getHealth": {Latency: 300 * time.Millisecond}}}}}
		withPipeServer(t, opts, func(t *testing.T, c *Chain, cl *rpc.Client) {
			for _, want := range []time.Duration{300 * time.Millisecond, 0} {
				start := time.Now()
				if want == 0 {
					_, _ = cl.GetSlot(context.Background(), "")
				} else if _, err := cl.GetHealth(context.Background()); err != nil {
					t.Fatalf("GetHealth: %v", err)
				}
				if got := time.Since(start); got != want {
					t.Fatalf("call took %v, want %v", got, want)
				}
			}
		})
	})
	t.Run("manual clock", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			clk := NewManualClock(epoch)
			opts := Options{Clock: clk, Faults: Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Latency: time.Second}}}}
			withPipeServerInBubble(t, opts, func(t *testing.T, c *Chain, cl *rpc.Client) {
				res := make(chan error, 1)
				go func() { _, err := cl.GetHealth(context.Background()); res <- err }()
				synctest.Wait()
				select {
				case err := <-res:
					t.Fatalf("answered before the clock moved: %v", err)
				default:
				}
				clk.Advance(time.Second)
				if err := <-res; err != nil {
					t.Fatalf("GetHealth: %v", err)
				}
			})
		})
	})
}

// withPipeServerInBubble is withPipeServer for a caller already in a bubble.
func withPipeServerInBubble(t *testing.T, opts Options, f func(t *testing.T, c *Chain, cl *rpc.Client)) {
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln := pipenet.NewListener("pipe")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.RPC().Serve(ctx, ln) }()
	hc := &http.Client{Transport: &http.Transport{DialContext: ln.DialContext}}
	f(t, c, rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts("http://pipe/", &jsonrpc.RPCClientOpts{HTTPClient: hc})))
	hc.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	ln.Close()
}

// faultTrace calls getSlot n times (and getBalance between, when
// interleave is set) and records which calls failed with which status.
func faultTrace(t *testing.T, seed uint64, n int, interleave bool) []int {
	t.Helper()
	rates := inject.Rates{ServerError: 0.25, RateLimit: 0.25}
	c, _ := newChain(t, Options{Seed: seed, Faults: Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Rates: rates}}}})
	cl := rpcClient(t, c)
	trace := make([]int, n)
	for i := range trace {
		if interleave {
			_, _ = cl.GetBalance(context.Background(), solana.PublicKey{}, "")
		}
		_, err := cl.GetSlot(context.Background(), "")
		var herr *jsonrpc.HTTPError
		if errors.As(err, &herr) {
			trace[i] = herr.Code
		} else if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	return trace
}

func TestFaultsAreDeterministic(t *testing.T) {
	a, b := faultTrace(t, 42, 64, false), faultTrace(t, 42, 64, true)
	if !equalInts(a, b) {
		t.Fatalf("same seed, same getSlot sequence, different faults:\n%v\n%v", a, b)
	}
	counts := map[int]int{}
	for _, code := range a {
		counts[code]++
	}
	if counts[503] == 0 || counts[429] == 0 || counts[0] == 0 {
		t.Fatalf("64 draws at 25%%/25%% gave %v", counts)
	}
	if c := faultTrace(t, 43, 64, false); equalInts(a, c) {
		t.Fatalf("different seeds gave the same 64 draws")
	}
}

// equalInts reports whether a and b are equal.
func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFaultValidation(t *testing.T) {
	tests := []struct {
		name   string
		faults Faults
		want   string
	}{
		{"unknown method", Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{"getBlock": {}}}}, `unknown method "getBlock"`},
		{"rates above one", Faults{Jito: inject.ServiceFaults{All: inject.MethodFaults{Rates: inject.Rates{Timeout: 0.6, Truncate: 0.6}}}}, "more than 1"},
		{"negative latency", Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Latency: -time.Second}}}, "negative latency"},
		{"bad status", Faults{ServerErrorStatus: 404}, "not a 5xx"},
		{"bad script", Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Script: []inject.Fault{99}}}}, "unknown fault 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(Options{Faults: tt.faults}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	c, _ := newChain(t, Options{})
	if err := c.InjectFaults(ServiceJito, "getSlot", inject.FaultTimeout); err == nil {
		t.Fatalf("InjectFaults accepted an RPC method for Jito")
	}
}
