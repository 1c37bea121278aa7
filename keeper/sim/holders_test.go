package sim

import (
	"maps"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// holdersScenario has collateral histories whose deposit-seconds over [start, start+400 s) are worked
// out by hand in TestHistoricalHolders. X has 2 decimals, so "10" is 1000 base units and 10 units.
const holdersScenario = `
mints:
  - {symbol: X, decimals: 2, price: 1}
  - {symbol: USDC, decimals: 6, price: 1}
wallets:
  - {name: alice}
  - {name: bob}
  - {name: carol}
  - {name: dave}
pools:
  - {name: px, dex: dex-a, mint0: X, mint1: USDC, tick_spacing: 10, price: 1, liquidity: "1000"}
positions:
  - {name: pos, pool: px, lower_tick: -100, upper_tick: 100, liquidity: "50"}
loans:
  - name: l1
    borrower: alice
    collateral: [{mint: X, amount: "10"}]
    history:
      - {at: "-1000s", kind: AddCollateral, asset: X, amount: "10"}
      - {at: "-500s", kind: RemoveCollateral, asset: X, amount: "4"}
      - {at: "100s", kind: AddCollateral, asset: X, amount: "2.5"}
      - {at: "300s", kind: RemoveCollateral, asset: X, amount: "1.5"}
      - {at: "400s", kind: AddCollateral, asset: X, amount: "100"}
  - name: l2
    borrower: alice
    collateral: [{mint: X, amount: "1"}]
    history:
      - {at: "200s", kind: AddCollateral, asset: X, amount: "1"}
  - name: l3
    borrower: bob
    collateral: [{mint: X, amount: "12"}]
    history:
      - {at: "-100s", kind: AddCollateral, asset: X, amount: "20"}
      - at: "250s"
        kind: Liquidate
        amount: "999"
        transfers:
          - {asset: X, amount: "5", to_liquidator: true}
          - {asset: X, amount: "3", to_liquidator: false}
          - {asset: USDC, amount: "7", to_liquidator: true}
  - name: l4
    borrower: carol
    collateral: [{mint: X, amount: "1"}]
    history:
      - {at: "500s", kind: AddCollateral, asset: X, amount: "1"}
  - name: l5
    borrower: dave
    started: "-50s"
    collateral: [{position: pos}]
  - name: l6
    borrower: dave
    collateral: [{mint: X, amount: "1"}]
    history:
      - {at: "400s", kind: AddCollateral, asset: X, amount: "1"}
`

func TestHistoricalHolders(t *testing.T) {
	sc, err := ParseScenario("holders.yaml", []byte(holdersScenario))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	a := func(kind, name string) string { return e.addr(t, kind, name).String() }
	start := market.UnixTime(testStart.Unix())
	x := a(ids.KindMint, "X")
	tests := []struct {
		name string
		mint string
		pdas bool
		want map[string]float64
	}{
		// alice: l1 starts at 10 − 4 = 6 (events before the range collapse), 6·100 + 8.5·200 + 7·100 = 3000
		// (the add at rangeEnd counts nothing); l2 adds 1 at 200: 1·200 = 200. bob: 20·250, then the
		// liquidation takes only the 5 X sent to the liquidator: 15·150 = 2250. carol's add is after the
		// range; dave's add at rangeEnd gives 0.
		{"by borrower", x, false, map[string]float64{a(ids.KindWallet, "alice"): 3200, a(ids.KindWallet, "bob"): 7250, a(ids.KindWallet, "dave"): 0}},
		{"by loan", x, true, map[string]float64{a(ids.KindLoan, "l1"): 3000, a(ids.KindLoan, "l2"): 200, a(ids.KindLoan, "l3"): 7250, a(ids.KindLoan, "l6"): 0}},
		// The pool id: l5's default AddCollateral of liquidity 50 (raw units) 50 s before the range.
		{"pool id", a(ids.KindPool, "px"), false, map[string]float64{a(ids.KindWallet, "dave"): 50 * 400}},
		// Only l3's liquidation transfers USDC to the liquidator: −7 from 250 s.
		{"liquidated mint", a(ids.KindMint, "USDC"), false, map[string]float64{a(ids.KindWallet, "bob"): -7 * 150}},
		{"unknown mint", ids.DerivedKey("mint", "nobody").String(), false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.market.HistoricalHolders(e.ctx, market.HoldersRequest{Mint: tc.mint, RangeStart: start, RangeEnd: start + 400, Pdas: tc.pdas})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(got) != 0 {
					t.Errorf("holders %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].CollateralMint != tc.mint || got[0].RangeStart != start || got[0].RangeEnd != start+400 {
				t.Fatalf("records %+v", got)
			}
			m := map[string]float64{}
			for k, v := range got[0].UserDepositSeconds {
				m[k] = v.Float64()
			}
			if !maps.Equal(m, tc.want) {
				t.Errorf("deposit-seconds %v, want %v", m, tc.want)
			}
		})
	}
}

func TestDepositSecondsRules(t *testing.T) {
	evs := []holderEvent{{time: 50, delta: 4}, {time: 5, delta: 1}, {time: 150, delta: 100}, {time: 200, delta: 7}}
	// Start balance 1 (the event before 10 collapses); 1·40 + 5·100 = 540; the event at 150 (the end)
	// and the one after it count nothing.
	if got := depositSeconds(evs, 10, 150); got != 540 {
		t.Errorf("depositSeconds = %v, want 540", got)
	}
}
