package policies

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// positionObs observes the wallet's loan "a" holding one CLMM position.
func positionObs(po PositionObservation) *Observation {
	obs := observe(loan("a", 10_000, full(1_000_000_000)))
	obs.Positions = []PositionObservation{po}
	return obs
}

func TestRebalanceDecision(t *testing.T) {
	tests := []struct {
		name   string
		params string
		pos    PositionObservation
		want   *clmm.Range
		reason string
		skips  []string
	}{{
		// tick 1000 is above [-500, 500). width 400 = 40 spacings of 10, centred: [800, 1200).
		name:   "out of range",
		params: "{width_ticks: 400}",
		pos:    clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: -500, Upper: 500}, 1000, 10),
		want:   &clmm.Range{Lower: 800, Upper: 1200},
		reason: "tick 1000 is out of range [-500, 500): move to [800, 1200) (width 400 ticks, spacing 10)",
	}, {
		// [900, 1100) at tick 1010: 90 ticks from the upper edge = 45 % of 200 > 10 %: nothing.
		name:   "in range, far from the edges",
		params: "{width_ticks: 200, trigger: {edge_pct: 10}}",
		pos:    clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: 900, Upper: 1100}, 1010, 10),
	}, {
		// tick 1085: 15 ticks from 1100 = 7.5 % ≤ 10 %. Width 200 around 1085: [980, 1180) and [990, 1190)
		// have midpoints 1080 and 1090, both 5 away; the lower wins.
		name:   "near an edge",
		params: "{width_ticks: 200, trigger: {edge_pct: 10}, slippage_bps: 30}",
		pos:    clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: 900, Upper: 1100}, 1085, 10),
		want:   &clmm.Range{Lower: 980, Upper: 1180},
		reason: "tick 1085 is 7.5% of the width from an edge of [900, 1100) (trigger edge_pct 10): move to [980, 1180) (width 200 ticks, spacing 10)",
	}, {
		// out_of_range only: 7.5 % from the edge is still in range.
		name:   "default trigger ignores edges",
		params: "{width_ticks: 200}",
		pos:    clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: 900, Upper: 1100}, 1085, 10),
	}, {
		// tick 1000 with spacing 10 and width 200 centres on [900, 1100): the range it already has.
		name:   "already centred",
		params: "{width_ticks: 200, trigger: {edge_pct: 50}}",
		pos:    clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: 900, Upper: 1100}, 1000, 10),
		skips:  []string{key("p") + ":noop"},
	}, {
		name:   "dex-b positions are not rebalanced",
		params: "{width_ticks: 400}",
		pos:    clmmPosition("a", "p", clmm.DexB, clmm.Range{Lower: -500, Upper: 500}, 1000, 10),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOne(t, policyYAML("name: rb", "kind: rebalance", `schedule: "@hourly"`, "params: "+tc.params))
			res := evaluate(t, p, positionObs(tc.pos))
			if got := reasons(res); !slices.Equal(got, tc.skips) {
				t.Errorf("skips = %v, want %v", got, tc.skips)
			}
			if tc.want == nil {
				if len(res.Actions) > 0 {
					t.Fatalf("unexpected action: %s", res.Actions[0].Reason)
				}
				return
			}
			if len(res.Actions) != 1 {
				t.Fatalf("got %d actions, want 1", len(res.Actions))
			}
			a := res.Actions[0]
			bps := p.Params.(*RebalanceParams).SlippageBps
			want := &market.TransferPositionRequest{Loan: key("a"), PositionMint: key("p"), SlippageDecimals: float64(bps) / 100,
				TransferParams: market.TransferParams{CollateralIndex: 0, LiquidityAmount: 123_456,
					TickLowerIndex: tc.want.Lower, TickUpperIndex: tc.want.Upper,
					Variant: market.TransferMode{Liquidity: &market.LiquidityTransfer{SlippageToleranceBps: bps}}}}
			if !reflect.DeepEqual(a.Request.TransferPosition, want) {
				t.Errorf("request = %+v\n want %+v", a.Request.TransferPosition, want)
			}
			if a.Reason != tc.reason {
				t.Errorf("reason = %q\n want %q", a.Reason, tc.reason)
			}
			if len(a.Bounds.MaxOutflow) != 0 || a.Bounds.MaxLamports != DefaultMaxFeeLamports+15_000_000 {
				t.Errorf("bounds = %+v, want no outflow and fees + rent", a.Bounds)
			}
		})
	}
}

// withFees is dex-b position "p" of loan "a", in range, owed f0 and f1.
func withFees(f0, f1 uint64) PositionObservation {
	po := clmmPosition("a", "p", clmm.DexB, clmm.Range{Lower: -500, Upper: 500}, 0, 64)
	po.State.Owed.Fees0, po.State.Owed.Fees1 = f0, f1
	return po
}

func TestClaimFeesDecision(t *testing.T) {
	tests := []struct {
		name   string
		params string
		pos    PositionObservation
		act    bool
	}{
		{"token 0 reaches its minimum", "{min_fees_0: 1000, min_fees_1: 5000}", withFees(1000, 0), true},
		{"token 1 reaches its minimum", "{min_fees_0: 1000, min_fees_1: 5000}", withFees(999, 5000), true},
		{"neither reaches", "{min_fees_0: 1000, min_fees_1: 5000}", withFees(999, 4999), false},
		{"an unset minimum never triggers", "{min_fees_1: 5000}", withFees(1_000_000, 0), false},
		{"dex-a positions are not claimed", "{min_fees_0: 1}", func() PositionObservation {
			po := clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: -500, Upper: 500}, 0, 64)
			po.State.Owed.Fees0 = 10
			return po
		}(), false},
		{"an untouched position: nothing stored, enough accrued", "{min_fees_1: 5000}", withFees(0, 5000), true},
		{"the stored figure alone does not decide", "{min_fees_1: 5000}", func() PositionObservation {
			po := withFees(0, 4999)
			po.State.Position.FeesOwed1 = 6000 // impossible on chain (owed ≥ stored); shows which figure decides
			return po
		}(), false},
		{"unknown owed fees do not act", "{min_fees_0: 1}", func() PositionObservation {
			po := withFees(1_000_000, 0)
			po.State.OwedErr = errors.New("clmm: dex-b tick array account X: account not found")
			return po
		}(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOne(t, policyYAML("name: cf", "kind: claim-fees", `schedule: "@hourly"`, "params: "+tc.params))
			res := evaluate(t, p, positionObs(tc.pos))
			if got := len(res.Actions) == 1; got != tc.act {
				t.Fatalf("acted = %v, want %v", got, tc.act)
			}
			if !tc.act {
				return
			}
			a := res.Actions[0]
			if want := (market.ClaimFeesRequest{Loan: key("a"), PositionMint: key("p")}); a.Request.ClaimFees == nil || *a.Request.ClaimFees != want {
				t.Errorf("request = %+v, want %+v", a.Request.ClaimFees, want)
			}
			if a.Request.Endpoint() != "E8" || len(a.Bounds.MaxOutflow) != 0 {
				t.Errorf("endpoint %s bounds %+v", a.Request.Endpoint(), a.Bounds)
			}
		})
	}
}

func TestPositionWhen(t *testing.T) {
	p := parseOne(t, policyYAML("name: rb", "kind: rebalance", `schedule: "@hourly"`,
		"when: loan.health > 0.5 && position.fees_owed_0 == 0", "params: {width_ticks: 400}"))
	res := evaluate(t, p, positionObs(clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: -500, Upper: 500}, 1000, 10)))
	if len(res.Actions) != 1 {
		t.Fatalf("got %d actions, want 1 (loan health 0.875)", len(res.Actions))
	}
	p = parseOne(t, policyYAML("name: rb", "kind: rebalance", `schedule: "@hourly"`,
		"when: loan.health > 0.9", "params: {width_ticks: 400}"))
	if res := evaluate(t, p, positionObs(clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: -500, Upper: 500}, 1000, 10))); len(res.Actions) != 0 {
		t.Fatal("acted although when is false")
	}
}

// TestOwedRewardFactsInExpressions indexes the per-slot reward facts.
func TestOwedRewardFactsInExpressions(t *testing.T) {
	p := parseOne(t, policyYAML("name: rw", "kind: alert", `schedule: "@hourly"`, "select: { target: positions }",
		`when: position.owed_known && position.rewards_owed[1] >= 9 && position.reward_mints[1] != "" && position.fees_stored_0 < position.fees_owed_0`,
		`params: { message: "reward {{index .position.rewards_owed 1}}" }`))
	po := clmmPosition("a", "p", clmm.DexB, clmm.Range{Lower: -500, Upper: 500}, 0, 64)
	po.State.Owed = clmm.Owed{Fees0: 5, Rewards: [clmm.NumRewards]uint64{0, 9, 0}}
	po.State.Pool.Rewards[1].Mint = pubkey("reward")
	res := evaluate(t, p, positionObs(po))
	if len(res.Actions) != 1 || res.Actions[0].Alert == nil || res.Actions[0].Alert.Message != "reward 9" {
		t.Fatalf("actions %+v, want one alert saying reward 9", res.Actions)
	}
	po.State.OwedErr = errors.New("tick array missing")
	if res := evaluate(t, p, positionObs(po)); len(res.Actions) != 0 {
		t.Fatalf("unknown owed amounts fired the alert: %+v", res.Actions)
	}
}

// TestClaimFeesByValue: min_value_usd claims when the fees owed are worth
// the minimum and more than the most the claim can cost (the fee and rent
// bounds in SOL at its price); an unknown value or cost acts on nothing.
func TestClaimFeesByValue(t *testing.T) {
	tokens := map[string]Token{key("mint0"): {Symbol: "SOL", Decimals: 9, PriceUSD: 100},
		key("mint1"): {Symbol: "USDC", Decimals: 6, PriceUSD: 1}, WrappedSOL: {Symbol: "SOL", Decimals: 9, PriceUSD: 100}}
	// The default bounds of a claim: 0.0001 SOL of fees and 0.0041 SOL of rent (two token accounts): 0.42 USD.
	tests := []struct {
		name    string
		params  string
		fees    [2]uint64
		tokens  map[string]Token
		act     bool
		skipped string
	}{
		{"0.05 SOL + 2 USDC = 7 USD ≥ 5", "{min_value_usd: 5}", [2]uint64{50_000_000, 2_000_000}, tokens, true, ""},
		{"4.99 USD < 5", "{min_value_usd: 5}", [2]uint64{0, 4_990_000}, tokens, false, ""},
		{"above a tiny minimum but not above the claim's cost", "{min_value_usd: 0.01}", [2]uint64{0, 300_000}, tokens, false, ""},
		{"a token minimum still claims on its own", "{min_fees_1: 1000000, min_value_usd: 50}", [2]uint64{0, 1_000_000}, tokens, true, ""},
		{"no price for a token with fees owed", "{min_value_usd: 5}", [2]uint64{50_000_000, 2_000_000},
			map[string]Token{key("mint1"): tokens[key("mint1")], WrappedSOL: tokens[WrappedSOL]}, false, "the fees' value is unknown: no price for " + key("mint0")},
		{"no fees in the unpriced token", "{min_value_usd: 5}", [2]uint64{0, 7_000_000},
			map[string]Token{key("mint1"): tokens[key("mint1")], WrappedSOL: tokens[WrappedSOL]}, true, ""},
		{"no price for SOL: the cost is unknown", "{min_value_usd: 5}", [2]uint64{0, 7_000_000},
			map[string]Token{key("mint1"): tokens[key("mint1")]}, false, "the claim's cost is unknown: no price for SOL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOne(t, policyYAML("name: cf", "kind: claim-fees", `schedule: "@hourly"`, "params: "+tc.params))
			obs := positionObs(withFees(tc.fees[0], tc.fees[1]))
			obs.Tokens = tc.tokens
			res := evaluate(t, p, obs)
			if got := len(res.Actions) == 1; got != tc.act {
				t.Fatalf("acted = %v, want %v (skipped %+v)", got, tc.act, res.Skipped)
			}
			if tc.skipped != "" && (len(res.Skipped) != 1 || res.Skipped[0].Reason != SkipNoData || !strings.Contains(res.Skipped[0].Detail, tc.skipped)) {
				t.Errorf("skipped %+v, want no_data saying %q", res.Skipped, tc.skipped)
			}
		})
	}
}
