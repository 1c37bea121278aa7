package sim

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// faultSequence makes n loans-info calls and returns what each answered: the status, or "short" for a
// truncated body.
func faultSequence(t *testing.T, seed uint64, n int) []string {
	t.Helper()
	rates := inject.MethodFaults{Rates: inject.Rates{ServerError: 0.2, RateLimit: 0.2, Truncate: 0.2}}
	e := newEnv(t, Options{Seed: seed, Faults: faults.Faults{Market: faults.Market{Endpoints: map[string]inject.MethodFaults{
		market.EndpointLoansInfo: rates}}}})
	var out []string
	for range n {
		r := e.post(t, http.MethodPost, "markets/loans/info", "", "", `{}`)
		out = append(out, describeOutcome(r))
	}
	return out
}

// describeOutcome names a call's outcome.
func describeOutcome(r rawResponse) string {
	if r.truncated {
		return "short"
	}
	return fmt.Sprint(r.status)
}

func TestMarketFaultsDeterministic(t *testing.T) {
	a, b := faultSequence(t, 7, 30), faultSequence(t, 7, 30)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
	kinds := map[string]bool{}
	for _, o := range a {
		kinds[o] = true
	}
	if len(kinds) != 4 {
		t.Errorf("30 calls at 20 %% per fault gave outcomes %v, want 200, 500, 429 and short", kinds)
	}
	if c := faultSequence(t, 8, 30); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same 30 faults")
	}
}

func TestMarketFaultKinds(t *testing.T) {
	e := newEnv(t, Options{Faults: faults.Faults{Market: faults.Market{RetryAfter: 3 * time.Second, ServerErrorStatus: 503}}})
	if err := e.sim.Faults().InjectMarket(market.EndpointLoansInfo, inject.FaultServerError, inject.FaultRateLimit, inject.FaultTruncate); err != nil {
		t.Fatal(err)
	}
	if r := e.post(t, http.MethodPost, "markets/loans/info", "", "", `{}`); r.status != 503 || r.message(t) != apiwire.GenericMessage {
		t.Errorf("server error: %d %s", r.status, r.body)
	}
	if r := e.post(t, http.MethodPost, "markets/loans/info", "", "", `{}`); r.status != 429 || r.header.Get("Retry-After") != "3" {
		t.Errorf("rate limit: %d Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	_, err := e.market.LoansInfo(e.ctx, market.LoansQuery{})
	if err == nil || !api.IsRetryable(err) {
		t.Errorf("truncated body: %v, want a retryable error", err)
	}
	if _, err := e.market.LoansInfo(e.ctx, market.LoansQuery{}); err != nil {
		t.Errorf("after the script: %v", err)
	}
	if err := e.sim.Faults().InjectMarket("nope", inject.FaultServerError); err == nil {
		t.Errorf("unknown endpoint accepted")
	}
	if err := e.sim.Faults().InjectMarket("", inject.FaultNeverLand); err == nil {
		t.Errorf("a chain fault accepted for the market")
	}
}

func TestMarketTimeoutAndLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := chainsim.NewManualClock(testStart)
		s, err := New(Options{Clock: clock, Wallet: testWallet(), Faults: faults.Faults{Market: faults.Market{Endpoints: map[string]inject.MethodFaults{
			market.EndpointLoopInfo:  {Latency: 2 * time.Second},
			market.EndpointLoansInfo: {Script: []inject.Fault{inject.FaultTimeout}},
		}}}})
		if err != nil {
			t.Fatal(err)
		}
		serve := func(path string, ctx context.Context) (*httptest.ResponseRecorder, chan struct{}) {
			rec, done := httptest.NewRecorder(), make(chan struct{})
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/"+path, strings.NewReader(`{}`))
			go func() { s.Handlers().Market.ServeHTTP(rec, req); close(done) }()
			synctest.Wait()
			return rec, done
		}
		ctx, cancel := context.WithCancel(t.Context())
		rec, done := serve("markets/loans/info", ctx)
		select {
		case <-done:
			t.Fatalf("timeout fault answered %d", rec.Code)
		default:
		}
		cancel()
		synctest.Wait()
		if rec.Body.Len() != 0 {
			t.Errorf("timeout fault wrote %q", rec.Body)
		}
		rec, done = serve("markets/loop/info", t.Context())
		select {
		case <-done:
			t.Fatalf("latency fault answered before the clock moved")
		default:
		}
		clock.Advance(2 * time.Second)
		synctest.Wait()
		if rec.Code != 200 {
			t.Errorf("after the latency: %d %s", rec.Code, rec.Body)
		}
	})
}

func TestChainFaultsFromOneConfig(t *testing.T) {
	e := newEnv(t, Options{Faults: faults.Faults{Chain: chainsim.Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{
		"getSlot": {Script: []inject.Fault{inject.FaultServerError}}}}}}})
	if _, err := e.rpc.GetSlot(e.ctx, ""); err == nil {
		t.Errorf("scripted RPC server error did not happen")
	}
	if _, err := e.rpc.GetSlot(e.ctx, ""); err != nil {
		t.Errorf("second getSlot: %v", err)
	}
	bad := faults.Faults{Market: faults.Market{Endpoints: map[string]inject.MethodFaults{"nope": {}}}}
	if err := e.sim.Faults().Set(bad); err == nil || !strings.Contains(err.Error(), `unknown endpoint "nope"`) {
		t.Errorf("SetFaults with an unknown endpoint: %v", err)
	}
	if _, err := New(Options{Faults: faults.Faults{Market: faults.Market{All: inject.MethodFaults{Rates: inject.Rates{NeverLand: 0.1}}}}}); err == nil {
		t.Errorf("a never-land rate accepted for the market")
	}
}
