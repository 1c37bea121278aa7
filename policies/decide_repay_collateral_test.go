package policies

import (
	"maps"
	"strings"
	"testing"
)

// collateralObservation prices USDC at 1 $ and COLL at 150 $ and gives loan a 100 COLL.
func collateralObservation(priceColl float64) *Observation {
	it := loan("a", 10_000, full(7_500_000_000))
	it.Collateral[0].Amount = 100_000_000_000
	obs := observe(it)
	obs.Tokens = maps.Clone(tokens)
	obs.Tokens[usdc] = Token{Symbol: "USDC", Decimals: 6, PriceUSD: 1}
	obs.Tokens[coll] = Token{Symbol: "COLL", Decimals: 9, PriceUSD: priceColl}
	return obs
}

// TestRepayFromCollateral: health 0.0625; from the wallet 1500 USDC would reach 0.25 (as
// TestRepayDecision's first case), but selling collateral takes capacity with it: each USD repaid
// sells up to 1.02 USD of COLL worth 1.02·0.8 = 0.816 of capacity, so r = 1500 / (1 − 0.75·0.816) =
// 1500 / 0.388 = 3865.979381 USDC, selling at most 3865.979381 / 150 × 1.02 = 26.28865979 COLL;
// health after = 1 − (7500 − 3865.98) / (8000 − 26.2887·150·0.8) = 1 − 3634.02/4845.36 = 0.25.
func TestRepayFromCollateral(t *testing.T) {
	for _, source := range []RepaySource{RepayFromCollateral, RepayAuto} {
		p := repayPolicy(t, "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000, source: "+string(source)+", max_slippage: 0.02}")
		res := evaluate(t, p, collateralObservation(150))
		if len(res.Actions) != 1 {
			t.Fatalf("%s: %d actions, skips %v", source, len(res.Actions), res.Skipped)
		}
		a := res.Actions[0]
		cr := a.Request.CollateralRepay
		if cr == nil || a.Request.BuildLoan != nil || a.Request.Endpoint() != "E2" {
			t.Fatalf("%s: request %+v", source, a.Request)
		}
		if cr.Debt != 3_865_979_381 || cr.MaxCollateral != 26_288_659_790 || cr.MinOut != 3_865_979_381 || cr.CollateralMint != coll ||
			cr.SlippageBps != 196 || cr.OraclePrice != 150 || cr.WalletFirst != (source == RepayAuto) {
			t.Errorf("%s: plan %+v", source, *cr)
		}
		if got := formatRatio(cr.HealthAfter); got != "0.25" {
			t.Errorf("%s: health after %v", source, cr.HealthAfter)
		}
		wantOut := map[string]uint64{}
		if source == RepayAuto {
			wantOut[usdc] = 3_865_979_381
		}
		if !maps.Equal(a.Bounds.MaxOutflow, wantOut) {
			t.Errorf("%s: max outflow %v, want %v", source, a.Bounds.MaxOutflow, wantOut)
		}
		if !strings.Contains(a.Reason, "selling at most 26.28865979 COLL") || !strings.Contains(a.Reason, "oracle 150 USDC per COLL") {
			t.Errorf("%s: reason %q", source, a.Reason)
		}
	}
}

// TestRepayFromCollateralNeedsAnOraclePrice: without the collateral's price nothing is sold.
func TestRepayFromCollateralNeedsAnOraclePrice(t *testing.T) {
	p := repayPolicy(t, "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000, source: collateral, max_slippage: 0.02}")
	obs := collateralObservation(0)
	obs.Unpriced = map[string]string{coll: "price is stale"}
	res := evaluate(t, p, obs)
	if len(res.Actions) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != SkipNoData || !strings.Contains(res.Skipped[0].Detail, "stale") {
		t.Fatalf("actions %v, skips %+v", res.Actions, res.Skipped)
	}
}

func TestRepaySourceParams(t *testing.T) {
	for params, want := range map[string]string{
		"source: collateral":                    "max_slippage is required",
		"source: collateral, max_slippage: 0.5": "max_slippage is required",
		"source: stranger":                      "params.source must be wallet, collateral or auto",
		"max_slippage: 0.01":                    "applies only when source is collateral or auto",
		"source: wallet, max_slippage: 0.01":    "applies only when source is collateral or auto",
	} {
		_, err := Parse("test.yaml", []byte(policyYAML("name: repay", "kind: repay", `schedule: "@every 1m"`,
			"params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000, "+params+"}")))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", params, err, want)
		}
	}
}
