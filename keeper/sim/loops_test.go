package sim

import (
	"math"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// loopsScenario has two loans looping LST against USDC, worked out in TestLoopFiguresFromLoans.
const loopsScenario = `
mints:
  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: LST, decimals: 9, price: 100, yield_apy: 0.08}
wallets:
  - {name: alice}
  - {name: bob}
strategies:
  - name: s
    authority: bob
    principal_mint: USDC
    idle: "10000"
    terms:
      - {collateral: LST, ltv: 800000, lqt: 900000, apys: {30d: 100000, 7d: 60000}}
loans:
  - name: l1
    borrower: alice
    started: "0s"
    collateral: [{mint: LST, amount: "10"}]
    ledgers: [{strategy: s, principal: "500", term: 30d}]
  - name: l2
    borrower: bob
    started: "0s"
    collateral: [{mint: LST, amount: "5"}]
    ledgers: [{strategy: s, principal: "250", term: 7d}]
loops:
  - {identifier: computed, principal_mint: USDC, collateral_mint: LST, max_apy: 0.2}
  - {identifier: fixed, principal_mint: USDC, collateral_mint: LST, collateral_deposited: 3, wavg_apy: 0.01, tags: [fixed]}
`

// TestLoopFiguresFromLoans serves E12 figures consistent with the loans: l1 holds 10 LST ($1,000)
// against 500 USDC at 10 %, a net APY on its $500 of equity of (1000·0.08 − 500·0.10)/500 = 6 %; l2
// holds 5 LST ($500) against 250 USDC at 6 %: (40 − 15)/250 = 10 %. Weighted by collateral value:
// (1000·0.06 + 500·0.10)/1500 = 7.33 %, over 15 LST deposited. Figures the scenario fixes are served
// as given.
func TestLoopFiguresFromLoans(t *testing.T) {
	sc, err := ParseScenario("loops.yaml", []byte(loopsScenario))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	usdc, lst := e.addr(t, ids.KindMint, "USDC").String(), e.addr(t, ids.KindMint, "LST").String()
	got, err := e.market.Loops(e.ctx, market.LoopsQuery{Identifiers: []string{usdc + "-" + lst}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("loops %+v, want both records of the pair", got)
	}
	computed, fixed := got[0], got[1]
	if computed.CollateralDeposited != 15 || math.Abs(computed.WAvgApy.Float64()-0.11/1.5) > 1e-9 ||
		computed.MaxApy == nil || *computed.MaxApy != 0.2 {
		t.Errorf("computed loop %+v, want 15 LST at 7.33 %% with maxApy 0.2", computed)
	}
	if fixed.CollateralDeposited != 3 || fixed.WAvgApy != 0.01 || fixed.MaxApy != nil {
		t.Errorf("fixed loop %+v, want the scenario's figures", fixed)
	}
	byTag, err := e.market.Loops(e.ctx, market.LoopsQuery{Tags: []string{"fixed"}})
	if err != nil || len(byTag) != 1 || byTag[0].Identifier != "fixed" {
		t.Errorf("by tag: %+v, %v", byTag, err)
	}
}
