package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// newControlled builds a simulator on the default scenario with a manual clock and its Control,
// without serving them.
func newControlled(t *testing.T) (*Sim, *Control) {
	t.Helper()
	s, err := New(Options{Clock: chainsim.NewManualClock(testStart), Wallet: testWallet()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, NewControl(s)
}

// serveOnce serves one request on h and returns the status and body.
func serveOnce(t *testing.T, h http.Handler, method, path, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestControlAdvance steps the clock through the default scenario's events over HTTP, and refuses
// bad requests, in order: each step starts where the previous one left the clock.
func TestControlAdvance(t *testing.T) {
	_, c := newControlled(t)
	h := c.Handler()
	steps := []struct {
		name, method, path, body string
		status                   int
		elapsed                  float64
		ran, pending             int
		errPart                  string
	}{
		{"to the first event", "POST", "/_sim/advance", `{"seconds": 5}`, 200, 5, 1, 9, ""},
		{"relative", "POST", "/_sim/advance", `{"seconds": 5.5}`, 200, 10.5, 2, 7, ""},
		{"until the past moves nothing", "POST", "/_sim/advance", `{"until": 3}`, 200, 10.5, 0, 7, ""},
		{"until", "POST", "/_sim/advance", `{"until": 20}`, 200, 20, 4, 3, ""},
		{"empty body object runs due events only", "POST", "/_sim/advance", `{}`, 200, 20, 0, 3, ""},
		{"negative", "POST", "/_sim/advance", `{"seconds": -1}`, 400, 0, 0, 0, "seconds must be"},
		{"too far", "POST", "/_sim/advance", `{"seconds": 86401}`, 400, 0, 0, 0, "seconds must be"},
		{"both", "POST", "/_sim/advance", `{"seconds": 1, "until": 40}`, 400, 0, 0, 0, "not both"},
		{"unknown field", "POST", "/_sim/advance", `{"secs": 1}`, 400, 0, 0, 0, "unknown field"},
		{"not json", "POST", "/_sim/advance", `five`, 400, 0, 0, 0, "bad body"},
		{"wrong method", "GET", "/_sim/advance", ``, 405, 0, 0, 0, ""},
		{"unknown route", "POST", "/_sim/rewind", `{}`, 404, 0, 0, 0, ""},
		{"to the end", "POST", "/_sim/advance", `{"until": 40}`, 200, 40, 3, 0, ""},
	}
	for _, st := range steps {
		status, body := serveOnce(t, h, st.method, st.path, st.body)
		if status != st.status {
			t.Fatalf("%s: status %d, want %d (body %s)", st.name, status, st.status, body)
		}
		if st.status != 200 {
			if !strings.Contains(body, st.errPart) {
				t.Errorf("%s: body %s, want it to mention %q", st.name, body, st.errPart)
			}
			continue
		}
		var res AdvanceResult
		if err := json.Unmarshal([]byte(body), &res); err != nil {
			t.Fatalf("%s: %v in %s", st.name, err, body)
		}
		wantSlot := uint64(st.elapsed / 0.4)
		if res.Elapsed != st.elapsed || res.EventsRun != st.ran || res.PendingEvents != st.pending ||
			res.Slot != wantSlot || !res.Now.Equal(testStart.Add(seconds(st.elapsed))) {
			t.Errorf("%s: %+v, want elapsed %g, slot %d, %d events run, %d pending", st.name, res, st.elapsed,
				wantSlot, st.ran, st.pending)
		}
	}
}

// TestControlAdvanceNeedsManualClock refuses to advance a real-time simulator but still shows its
// state.
func TestControlAdvanceNeedsManualClock(t *testing.T) {
	s, err := New(Options{Wallet: testWallet()})
	if err != nil {
		t.Fatal(err)
	}
	h := NewControl(s).Handler()
	if status, body := serveOnce(t, h, "POST", "/_sim/advance", `{"seconds": 1}`); status != http.StatusConflict ||
		!strings.Contains(body, "not manual") {
		t.Errorf("advance: %d %s, want 409 naming the clock", status, body)
	}
	if status, body := serveOnce(t, h, "GET", "/_sim/state", ""); status != 200 || !strings.Contains(body, `"repay-me"`) {
		t.Errorf("state: %d %.200s", status, body)
	}
}

// TestControlAfterTrafficWaits checks that an advance with after_traffic waits for a chain request,
// then moves the clock once, and that a cancelled wait moves nothing.
func TestControlAfterTrafficWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newControlled(t)
		rpcH := c.CountTraffic(chainsim.ServiceRPC, s.Handlers().RPC)
		zero := uint64(0)
		type result struct {
			res AdvanceResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := c.Advance(context.Background(), AdvanceRequest{Seconds: 0.4, AfterTraffic: &zero})
			done <- result{res, err}
		}()
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("advance returned before any traffic: %+v, %v", r.res, r.err)
		default:
		}
		if s.Now() != testStart {
			t.Fatalf("clock moved to %s before any traffic", s.Now())
		}
		status, body := serveOnce(t, rpcH, "POST", "/", `{"jsonrpc":"2.0","id":1,"method":"getSlot"}`)
		if status != 200 || !strings.Contains(body, `"result":0`) {
			t.Fatalf("getSlot: %d %s", status, body)
		}
		synctest.Wait()
		r := <-done
		if r.err != nil || r.res.Traffic != 1 || r.res.Slot != 1 || r.res.Elapsed != 0.4 {
			t.Errorf("advance after traffic: %+v, %v; want traffic 1, slot 1, elapsed 0.4", r.res, r.err)
		}

		ctx, cancel := context.WithCancel(context.Background())
		one := uint64(1)
		go func() {
			res, err := c.Advance(ctx, AdvanceRequest{Seconds: 10, AfterTraffic: &one})
			done <- result{res, err}
		}()
		synctest.Wait()
		cancel()
		r = <-done
		if !errors.Is(r.err, context.Canceled) || s.Now() != testStart.Add(400*time.Millisecond) {
			t.Errorf("cancelled advance: %v, clock at %s; want context.Canceled and no move", r.err, s.Now())
		}
	})
}

// TestControlServedState serves the simulator with its control, lands a repay signed by the wallet
// and a transfer signed by someone else, and reads the state over HTTP.
// serveControlled serves a simulator from newControlled, with its control, until the test ends,
// and returns the environment of clients on it.
func serveControlled(t *testing.T) *env {
	t.Helper()
	s, c := newControlled(t)
	ctx, cancel := context.WithCancel(context.Background())
	urls, err := s.StartControlled(ctx, Addrs{}, c)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := s.Wait(); err != nil {
			t.Errorf("Wait: %v", err)
		}
	})
	mc, err := api.New(api.Options{BaseURL: urls.Market, Wallet: testWallet().String(), Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{sim: s, urls: urls, market: mc, rpc: rpc.New(urls.RPC), ctx: ctx}
}

func TestControlServedState(t *testing.T) {
	e := serveControlled(t)
	s, urls, ctx := e.sim, e.urls, e.ctx
	if got, want := urls.Control(), strings.TrimSuffix(urls.Market, "/v1")+"/_sim/"; got != want {
		t.Errorf("control url %s, want %s", got, want)
	}
	before := getState(t, urls.Control())

	resp, err := e.market.BuildLoan(ctx, "repay-ctl", market.BuildLoanRequest{Loan: e.addr(t, ids.KindLoan, "repay-me").String(),
		Steps: []market.Step{{Type: market.StepRepay, Params: market.StepParams{RepayParams: []market.RepayParam{{Amount: 100_000_000}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	sig := e.send(t, signAPI(t, resp.Transactions[0], testKey))
	e.send(t, strangerTransfer(t, s))
	advance(t, urls.Control(), `{"seconds": 0.4}`)
	after := getState(t, urls.Control())

	if after.Traffic <= before.Traffic {
		t.Errorf("traffic %d → %d, want the RPC sends counted", before.Traffic, after.Traffic)
	}
	if len(after.Signed) != 1 || after.Signed[0].Signature != sig.String() || !after.Signed[0].FeePayer || after.Signed[0].Err != "" ||
		after.Signed[0].Fee == 0 {
		t.Errorf("signed %+v, want only the repay %s, paid by the wallet, without error", after.Signed, sig)
	}
	loanB, loanA := before.Loans["repay-me"], after.Loans["repay-me"]
	if loanB.Outstanding != 800_000_000 || loanA.Outstanding != 700_000_000 || loanA.Repaid != 100_000_000 || !loanA.Active ||
		loanA.Borrower != testWallet().String() {
		t.Errorf("repay-me before %+v, after %+v; want 800 → 700 USDC outstanding", loanB, loanA)
	}
	if !(loanB.Health > 0.3 && loanB.Health < 0.45 && loanA.Health > loanB.Health) {
		t.Errorf("repay-me health %v → %v, want about 0.37 rising", loanB.Health, loanA.Health)
	}
	if got := before.Wallet.Tokens["USDC"] - after.Wallet.Tokens["USDC"]; got != 100_000_000 {
		t.Errorf("wallet USDC went down by %d, want 100000000", got)
	}
	if got := before.Wallet.Lamports - after.Wallet.Lamports; got != after.Signed[0].Fee-1000 {
		t.Errorf("wallet lamports went down by %d, want the fee %d less the stranger's 1000", got, after.Signed[0].Fee)
	}
	for k, n := range map[string]uint64{"market build_loan": 1, "rpc sendTransaction": 2} {
		if st := after.Service[k]; st.Answers != n || st.Seconds <= 0 || st.Mean() <= 0 {
			t.Errorf("service %q: %+v, want %d answers and the time they took", k, st, n)
		}
	}
	checkStaticState(t, after)
}

// TestControlNotesTheSignatureNotification checks that the state tells when the RPC's websocket
// wrote a signed transaction's signature notification: after its confirmation.
func TestControlNotesTheSignatureNotification(t *testing.T) {
	e := serveControlled(t)
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	resp, err := e.market.BuildLoan(ctx, "repay-ws", market.BuildLoanRequest{Loan: e.addr(t, ids.KindLoan, "repay-me").String(),
		Steps: []market.Step{{Type: market.StepRepay, Params: market.StepParams{RepayParams: []market.RepayParam{{Amount: 100_000_000}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	wire := signAPI(t, resp.Transactions[0], testKey)
	tx, err := solana.TransactionFromBytes(wire)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := ws.Connect(ctx, "ws"+strings.TrimPrefix(e.urls.RPC, "http"))
	if err != nil {
		t.Fatalf("ws.Connect: %v", err)
	}
	defer cl.Close()
	sub, err := cl.SignatureSubscribe(tx.Signatures[0], rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if err := e.sim.chain.Pubsub.WaitSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	e.send(t, wire)
	if st := getState(t, e.urls.Control()); len(st.Signed) != 1 || !st.Signed[0].NotifiedAt.IsZero() {
		t.Fatalf("signed %+v, want the repay, not notified before its slot is over", st.Signed)
	}
	advance(t, e.urls.Control(), `{"seconds": 0.4}`)
	if _, err := sub.Recv(ctx); err != nil {
		t.Fatalf("recv: %v", err)
	}
	// The control hears of the notification as its write starts, on the connection's writer
	// goroutine, which may run it after the subscriber has read the notification.
	st := getState(t, e.urls.Control())
	for len(st.Signed) == 1 && st.Signed[0].NotifiedAt.IsZero() && ctx.Err() == nil {
		st = getState(t, e.urls.Control())
	}
	if len(st.Signed) != 1 || st.Signed[0].NotifiedAt.IsZero() || st.Signed[0].NotifiedAt.Before(st.Signed[0].ConfirmedAt) {
		t.Errorf("signed %+v, want the repay notified at or after its confirmation", st.Signed)
	}
}

// TestControlServiceTime checks that the control adds up the time each service reports working on
// an answer, by service and method, and leaves out answers a fault replaced.
func TestControlServiceTime(t *testing.T) {
	s, c := newControlled(t)
	rpcH := c.CountTraffic(chainsim.ServiceRPC, s.Handlers().RPC)
	jitoH := c.CountTraffic(chainsim.ServiceJito, s.Handlers().Jito)
	marketH := c.CountMarket(s.Handlers().Market)
	getSlot := `{"jsonrpc":"2.0","id":1,"method":"getSlot"}`
	for range 2 {
		if status, body := serveOnce(t, rpcH, "POST", "/", getSlot); status != 200 {
			t.Fatalf("getSlot: %d %s", status, body)
		}
	}
	tips := `{"jsonrpc":"2.0","id":1,"method":"getTipAccounts","params":[]}`
	if status, body := serveOnce(t, jitoH, "POST", "/api/v1/bundles", tips); status != 200 {
		t.Fatalf("getTipAccounts: %d %s", status, body)
	}
	if status, body := serveOnce(t, marketH, "POST", "/v1/markets/loans/info", `{}`); status != 200 {
		t.Fatalf("loans_info: %d %s", status, body)
	}
	if err := s.chain.InjectFaults(chainsim.ServiceRPC, "getSlot", inject.FaultServerError); err != nil {
		t.Fatal(err)
	}
	if status, _ := serveOnce(t, rpcH, "POST", "/", getSlot); status < 500 {
		t.Fatalf("getSlot with a fault: %d, want a 5xx", status)
	}
	st, err := c.State()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"rpc getSlot": 2, "jito getTipAccounts": 1, "market loans_info": 1}
	if len(st.Service) != len(want) {
		t.Errorf("service %+v, want %v", st.Service, want)
	}
	for k, n := range want {
		if got := st.Service[k]; got.Answers != n || got.Seconds < 0 {
			t.Errorf("service %q: %+v, want %d answers", k, got, n)
		}
	}
}

// TestControlServiceLatency checks that the control adds up, by service and method, the time an
// injected latency held each request back as the answer's Server-Timing header reports it: the
// time actually waited, here longer than the latency asked for, and nothing for an answer that had
// no latency.
func TestControlServiceLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := chainsim.NewManualClock(testStart)
		ms := time.Millisecond
		s, err := New(Options{Clock: clock, Wallet: testWallet(), Faults: faults.Faults{
			Chain:  chainsim.Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{"getSlot": {Latency: 20 * ms}}}},
			Market: faults.Market{Endpoints: map[string]inject.MethodFaults{market.EndpointLoansInfo: {Latency: 30 * ms}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		c := NewControl(s)
		rpcH := c.CountTraffic(chainsim.ServiceRPC, s.Handlers().RPC)
		marketH := c.CountMarket(s.Handlers().Market)
		// held serves one request on h while the chain's clock stands still for held, then
		// moves it on past the request's latency.
		held := func(h http.Handler, path, body string, held time.Duration) *httptest.ResponseRecorder {
			rec, done := httptest.NewRecorder(), make(chan struct{})
			go func() {
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
				close(done)
			}()
			time.Sleep(held)
			clock.Advance(time.Second)
			<-done
			return rec
		}
		getSlot := `{"jsonrpc":"2.0","id":1,"method":"getSlot"}`
		for _, d := range []time.Duration{25 * ms, 35 * ms} {
			if rec := held(rpcH, "/", getSlot, d); rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Server-Timing"), ", latency;dur=") {
				t.Fatalf("getSlot: %d %q", rec.Code, rec.Header().Get("Server-Timing"))
			}
		}
		if rec := held(marketH, "/v1/markets/loans/info", `{}`, 40*ms); rec.Code != http.StatusOK {
			t.Fatalf("loans_info: %d %s", rec.Code, rec.Body)
		}
		getBalance := `{"jsonrpc":"2.0","id":2,"method":"getBalance","params":["` + testWallet().String() + `"]}`
		if status, body := serveOnce(t, rpcH, "POST", "/", getBalance); status != http.StatusOK {
			t.Fatalf("getBalance: %d %s", status, body)
		}
		st, err := c.State()
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]time.Duration{"rpc getSlot": 30 * ms, "market loans_info": 40 * ms, "rpc getBalance": 0} {
			if got := st.Service[k]; got.Answers == 0 || got.MeanLatency() != want {
				t.Errorf("service %q: %+v, mean latency %v; want %v", k, got, got.MeanLatency(), want)
			}
		}
	})
}

// checkStaticState checks the parts of the default scenario's state that nothing above changed.
func checkStaticState(t *testing.T, st ControlState) {
	t.Helper()
	if st.Elapsed != 0.4 || st.Slot != 1 || st.PendingEvents != 10 || st.Wallet.Address != testWallet().String() {
		t.Errorf("state header %+v", st)
	}
	if p := st.Positions["pos-a"]; !p.InRange || p.TickSpacing != 10 || p.LowerTick >= p.PoolTick || p.UpperTick <= p.PoolTick ||
		p.Liquidity != "500000000000" {
		t.Errorf("pos-a %+v, want in range with liquidity 500000000000", p)
	}
	if p := st.Positions["pos-b"]; p.FeesOwed1 != 2_000_000 || p.FeesOwed0 != 10_000_000 {
		t.Errorf("pos-b fees %d/%d, want 10000000/2000000", p.FeesOwed0, p.FeesOwed1)
	}
	if r := st.Requests["usdc-earn/r-full"]; r.Requested != 300_000_000 || r.Filled != 100_000_000 || r.Claimed != 0 || !r.Open {
		t.Errorf("r-full %+v", r)
	}
	alpha := st.Strategies["alpha"]
	if alpha.Idle != 60_000_000_000 || alpha.Authority != testWallet().String() || len(alpha.Terms["SOL"]) != 2 ||
		alpha.Terms["SOL"]["7 days"] != 120_000 || alpha.Terms["SOL"]["30 days"] != 110_000 {
		t.Errorf("alpha %+v, want SOL 7 days at 120000 and 30 days at 110000", alpha)
	}
	if _, ok := st.Strategies["beta"].Terms["sol-usdc-a"]; !ok {
		t.Errorf("beta terms %v, want the pool named sol-usdc-a", st.Strategies["beta"].Terms)
	}
}

// strangerTransfer returns a funded stranger's System transfer, which the wallet did not sign.
func strangerTransfer(t *testing.T, s *Sim) []byte {
	t.Helper()
	key, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Chain().Setup.Fund(key.PublicKey(), 1_000_000_000); err != nil {
		t.Fatal(err)
	}
	bh, _ := s.Chain().Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(1000, key.PublicKey(), testWallet()).Build()},
		bh, solana.TransactionPayer(key.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &key }); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// getState reads GET /_sim/state.
func getState(t *testing.T, base string) ControlState {
	t.Helper()
	resp, err := http.Get(base + "state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st ControlState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("state: %d, %v", resp.StatusCode, err)
	}
	return st
}

// advance posts to /_sim/advance and fails the test unless it succeeds.
func advance(t *testing.T, base, body string) {
	t.Helper()
	resp, err := http.Post(base+"advance", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 {
		t.Fatalf("advance %s: %d %s", body, resp.StatusCode, b)
	}
}

// TestStartControlledRefusesForeignControl checks that a control serves only its own simulator.
func TestStartControlledRefusesForeignControl(t *testing.T) {
	s1, _ := newControlled(t)
	_, c2 := newControlled(t)
	if _, err := s1.StartControlled(context.Background(), Addrs{}, c2); err == nil || !strings.Contains(err.Error(), "another simulator") {
		t.Errorf("StartControlled with another sim's control: %v", err)
	}
	if _, err := s1.StartControlled(context.Background(), Addrs{}, nil); err == nil {
		t.Error("StartControlled with a nil control succeeded")
	}
}
