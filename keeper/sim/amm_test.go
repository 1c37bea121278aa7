package sim

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/jupiter"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// TestAMMInInvertsAMMOut: the input AMMIn asks is the least that pays the output.
func TestAMMInInvertsAMMOut(t *testing.T) {
	for _, c := range []struct {
		rin, rout, out uint64
		fee            uint16
	}{{10_000e9, 1_500_000e6, 140e6, 30}, {20e9, 3000e6, 1499e6, 0}, {7, 11, 3, 100}, {1e15, 1e6, 999, 9999}} {
		in, ok := programs.AMMIn(c.rin, c.rout, c.out, c.fee)
		if !ok || programs.AMMOut(c.rin, c.rout, in, c.fee) < c.out || programs.AMMOut(c.rin, c.rout, in-1, c.fee) >= c.out {
			t.Errorf("AMMIn(%d, %d, %d, %d) = %d, %v: not the least input paying the output", c.rin, c.rout, c.out, c.fee, in, ok)
		}
	}
	if _, ok := programs.AMMIn(10, 100, 100, 30); ok {
		t.Error("AMMIn paid the whole reserve")
	}
}

// TestJupiterExactOutSellsJustEnough: an ExactOut quote asks the input the pool's curve needs and
// caps it by the slippage; its swap, laid out as keeper does (the cap withdrawn), spends exactly
// what the curve needs, pays the exact output and leaves the rest of the withdrawal in the wallet.
// A moved price above the cap fails on chain; a pool that cannot quote ExactOut has no route.
func TestJupiterExactOutSellsJustEnough(t *testing.T) {
	e, jc := ammEnv(t, scenario.AMMSpec{Name: "sol-usdc", Base: "SOL", Quote: "USDC", BaseReserve: 10000, Price: 150, FeeBps: 30})
	solMint, usdc := e.addr(t, ids.KindMint, "SOL"), e.addr(t, ids.KindMint, "USDC")
	req := jupiter.QuoteRequest{InputMint: solMint.String(), OutputMint: usdc.String(), Amount: 140e6, SlippageBps: 50, SwapMode: jupiter.ExactOut}
	q, err := jc.Quote(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	need, _ := programs.AMMIn(10000e9, 1_500_000e6, 140e6, 30)
	if q.SwapMode != jupiter.ExactOut || q.OutAmount != 140e6 || q.InAmount.Uint64() != need || q.OtherAmountThreshold.Uint64() != need*10050/10000 {
		t.Fatalf("quote %s in %d out %d threshold %d, want ExactOut in %d out 140000000 threshold %d",
			q.SwapMode, q.InAmount, q.OutAmount, q.OtherAmountThreshold, need, need*10050/10000)
	}
	solBefore, usdcBefore := e.sim.Accounts().TokenBalance(testWallet(), solMint), e.sim.Accounts().TokenBalance(testWallet(), usdc)
	resp, err := collateralRepayQuote(t, e, jc, "x1", q, q.OtherAmountThreshold.Uint64(), 140e6, market.DefaultCollateralRepayLayout())
	if err != nil {
		t.Fatal(err)
	}
	e.landed(t, e.send(t, signAPI(t, resp.Transactions[0], testKey)))
	pool := e.sim.AMMs()["sol-usdc"]
	if took := uint64(pool.BaseReserve*1e9+0.5) - 10000e9; pool.Swaps != 1 || took != need {
		t.Errorf("the pool took %d lamports in %d swaps, want %d in one", took, pool.Swaps, need)
	}
	if kept := e.sim.Accounts().TokenBalance(testWallet(), solMint) - solBefore; kept != q.OtherAmountThreshold.Uint64()-need {
		t.Errorf("the wallet kept %d lamports of wrapped SOL, want the unspent %d", kept, q.OtherAmountThreshold.Uint64()-need)
	}
	if got := e.sim.Accounts().TokenBalance(testWallet(), usdc); got != usdcBefore {
		t.Errorf("wallet USDC %d → %d: the exact output should repay the flash loan exactly", usdcBefore, got)
	}

	// The price falls after the quote: the curve needs more than the cap.
	q, err = jc.Quote(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = collateralRepayQuote(t, e, jc, "x2", q, q.OtherAmountThreshold.Uint64(), 140e6, market.DefaultCollateralRepayLayout())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.sim.amms.change(scenario.AMMEvent{Name: "sol-usdc", Price: 140}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.rpc.SendRawTransaction(e.ctx, signAPI(t, resp.Transactions[0], testKey)); err == nil || !strings.Contains(err.Error(), "6020") {
		t.Errorf("moved price: err = %v, want the swap's slippage error 6020", err)
	}
}

// TestJupiterExactOutUnroutable: a pool whose DEX cannot quote ExactOut answers no route, as Jupiter
// does, and still quotes ExactIn.
func TestJupiterExactOutUnroutable(t *testing.T) {
	e, jc := ammEnv(t, scenario.AMMSpec{Name: "sol-usdc", Base: "SOL", Quote: "USDC", BaseReserve: 10000, Price: 150, NoExactOut: true})
	req := jupiter.QuoteRequest{InputMint: e.addr(t, ids.KindMint, "SOL").String(), OutputMint: e.addr(t, ids.KindMint, "USDC").String(),
		Amount: 140e6, SlippageBps: 50, SwapMode: jupiter.ExactOut}
	_, err := jc.Quote(e.ctx, req)
	if je, ok := errors.AsType[*jupiter.Error](err); !ok || je.Status != http.StatusBadRequest || !strings.Contains(je.Excerpt, jupiterNoRoute) {
		t.Errorf("ExactOut through a pool without it: err = %v, want 400 %s", err, jupiterNoRoute)
	}
	req.SwapMode = jupiter.ExactIn
	if _, err := jc.Quote(e.ctx, req); err != nil {
		t.Errorf("ExactIn: %v", err)
	}
}

// ammScenarioYAML adds a SOL/USDC pool and amm events to the default scenario.
const ammScenarioYAML = `
amms:
  - {name: sol-usdc, base: SOL, quote: USDC, base_reserve: 10000, price: 150, fee_bps: 30}
`

// withAMM returns the default scenario with the pool of ammScenarioYAML and events first among its
// events.
func withAMM(events ...string) string {
	y := string(DefaultScenarioYAML()) + ammScenarioYAML
	for _, ev := range slices.Backward(events) {
		y = strings.Replace(y, "\nevents:\n", "\nevents:\n  - "+ev+"\n", 1)
	}
	return y
}

// TestAMMEventFromScenario: an amm event of a scenario file moves the pool's price, thins it and
// skews its quotes when its time comes; bad ones are refused at load with their position.
func TestAMMEventFromScenario(t *testing.T) {
	yaml := withAMM(`{at: 20s, amm: {name: sol-usdc, price: 100}}`, `{at: 30s, amm: {name: sol-usdc, base_reserve: 20, quote_skew_bps: 300}}`)
	sc, err := ParseScenario("amm.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Scenario: sc, Clock: chainsim.NewManualClock(testStart), Wallet: testWallet()})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		to          time.Duration
		base, price float64
		skew        int
	}{{15 * time.Second, 10000, 150, 0}, {20 * time.Second, 10000, 100, 0}, {30 * time.Second, 20, 100, 300}}
	at := time.Duration(0)
	for _, st := range steps {
		if err := s.Events().Advance(st.to - at); err != nil {
			t.Fatal(err)
		}
		at = st.to
		p := s.AMMs()["sol-usdc"]
		if !near(p.BaseReserve, st.base) || !near(p.Price, st.price) || p.QuoteSkewBps != st.skew {
			t.Errorf("at %s: pool %+v, want base %g price %g skew %d", st.to, p, st.base, st.price, st.skew)
		}
	}
	for _, bad := range []struct{ event, want string }{
		{"{at: 1s, amm: {name: nowhere, price: 1}}", `unknown amm "nowhere"`},
		{"{at: 1s, amm: {name: sol-usdc}}", "give base_reserve, price or quote_skew_bps"},
		{"{at: 1s, amm: {name: sol-usdc, price: -1}}", "must not be negative"},
	} {
		if _, err := ParseScenario("amm.yaml", []byte(withAMM(bad.event))); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "amm.yaml:") {
			t.Errorf("%s: err = %v, want a positioned %q", bad.event, err, bad.want)
		}
	}
}

// TestControlAMM: POST /_sim/amm changes a pool as the amm event does, GET /_sim/state shows it, and
// bad requests are refused.
func TestControlAMM(t *testing.T) {
	sc, err := ParseScenario("amm.yaml", []byte(withAMM()))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Scenario: sc, Clock: chainsim.NewManualClock(testStart), Wallet: testWallet()})
	if err != nil {
		t.Fatal(err)
	}
	h := NewControl(s).Handler()
	code, body := serveOnce(t, h, http.MethodPost, ControlPrefix+"amm", `{"name": "sol-usdc", "base_reserve": 50, "quote_skew_bps": -200}`)
	var got AMMState
	if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || !near(got.BaseReserve, 50) || !near(got.Price, 150) || got.QuoteSkewBps != -200 {
		t.Fatalf("POST amm: %d %s, want the pool thinned to 50 SOL at 150 with skew -200", code, body)
	}
	code, body = serveOnce(t, h, http.MethodGet, ControlPrefix+"state", "")
	var st ControlState
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil || !near(st.AMMs["sol-usdc"].BaseReserve, 50) || st.AMMs["sol-usdc"].Swaps != 0 {
		t.Errorf("state: %d amms %+v", code, st.AMMs)
	}
	for _, bad := range []string{`{"name": "nowhere", "price": 1}`, `{"name": "sol-usdc"}`, `{"name": "sol-usdc", "prize": 1}`, `{"name": "sol-usdc", "quote_skew_bps": -10000}`} {
		if code, body := serveOnce(t, h, http.MethodPost, ControlPrefix+"amm", bad); code != http.StatusBadRequest {
			t.Errorf("POST amm %s: %d %s, want 400", bad, code, body)
		}
	}
}
