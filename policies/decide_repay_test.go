package policies

import (
	"slices"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// repayPolicy returns a repay policy with the given params line.
func repayPolicy(t *testing.T, params string, extra ...string) *Policy {
	lines := append([]string{"name: repay", "kind: repay", `schedule: "@every 1m"`, "params: " + params}, extra...)
	return parseOne(t, policyYAML(lines...))
}

// Every case's numbers are worked by hand in its comment. The loan helper
// prices principal at 1 USDC per 1e6 units; full() ledgers see all of the
// collateral at an 80 % liquidation threshold, so capacity = 0.8 × collUSD.
func TestRepayDecision(t *testing.T) {
	withInterest := full(7_500_000_000)
	withInterest.interest, withInterest.perSecond, withInterest.endIn = 5_000_000, 10, 1000*time.Second
	split := func(p uint64) ledger { l := full(p); l.weight = 500_000; return l }
	ending := full(1_000_000_000)
	ending.interest, ending.perSecond, ending.endIn = 2_000_000, 100, time.Hour
	tests := []struct {
		name      string
		params    string
		when      string
		loan      market.LoanItem
		amount    uint64
		ledgerIdx int
		all       bool
		reason    string
		skips     []string
	}{{
		// capacity 8000, debt 7500 → health 1 − 7500/8000 = 0.0625 < 0.1.
		// debt' = (1 − 0.25)·8000 = 6000 → repay 1500 USD = 1.5e9 units.
		name:   "to target health",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}",
		loan:   loan("a", 10_000, full(7_500_000_000)),
		amount: 1_500_000_000,
		reason: "health 0.0625 < 0.10: repay 1500 USDC on ledger 0 to reach 0.25",
	}, {
		// liquidation LTV = 8000/10000 = 0.8; target_ltv 0.6 → target health 1 − 0.6/0.8 = 0.25: as above.
		name:   "to target ltv",
		params: "{trigger_health: 0.1, target_ltv: 0.6, max_amount: 5000000000}",
		loan:   loan("a", 10_000, full(7_500_000_000)),
		amount: 1_500_000_000,
		reason: "health 0.0625 < 0.10: repay 1500 USDC on ledger 0 to reach 0.25",
	}, {
		// debt = 7.5e9 + 5e6 + 10·1000 = 7,505,010,000 units = 7505.01 USD (price 1e-6, from principalUsd
		// 7500 / outstanding 7.5e9). health = 1 − 7505.01/8000 = 0.06187375. repay 7505.01 − 6000 = 1505.01.
		name:   "debt includes interest to the end of term",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}",
		loan:   loan("a", 10_000, withInterest),
		amount: 1_505_010_000,
		reason: "health 0.0619 < 0.10: repay 1505.01 USDC on ledger 0 to reach 0.25",
	}, {
		// as above, capped at 1000 USDC: health after = 1 − (7505.01 − 1000)/8000 = 0.18687375.
		name:   "capped at max_amount",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 1000000000}",
		loan:   loan("a", 10_000, withInterest),
		amount: 1_000_000_000,
		reason: "health 0.0619 < 0.10: repay 1000 USDC on ledger 0, reaching 0.1869 of target 0.25 (capped at max_amount)",
	}, {
		// capacity 8000, debt 7900 → health 0.0125; target 0.03 → debt' 7760 → repay 140 USDC, raised to
		// min 200. health after = 1 − 7700/8000 = 0.0375.
		name:   "raised to min_amount",
		params: "{trigger_health: 0.02, target_health: 0.03, min_amount: 200000000, max_amount: 5000000000}",
		loan:   loan("a", 10_000, full(7_900_000_000)),
		amount: 200_000_000,
		reason: "health 0.0125 < 0.02: repay 200 USDC on ledger 0, reaching 0.0375 of target 0.03 (raised to min_amount)",
	}, {
		// target 0.99 → debt' = 0.01·8000 = 80 → repay 7420, capped at the 7500 outstanding? No: 7420 < 7500.
		// With target 0.999: debt' = 8 → 7492 < 7500 too. Use a max above and a debt with accrued interest
		// to the end: principal 100, interest 0, perSecond 1e6 for 1000 s → debt 1.1e9 units = 1100 USD,
		// capacity 0.8·2000 = 1600, health 0.3125 < 0.5; target 0.9 → debt' 160 → repay 940 USD = 9.4e8 units,
		// above the 1e8 + 0 repayable now → capped at 1e8.
		name:   "capped at the debt outstanding now",
		params: "{trigger_health: 0.5, target_health: 0.9, max_amount: 5000000000}",
		loan:   loan("a", 2000, ledger{principal: 100_000_000, perSecond: 1e6, endIn: 1000 * time.Second, weight: 1_000_000, lqt: 800_000}),
		amount: 100_000_000,
		reason: "health 0.3125 < 0.50: repay 100 USDC on ledger 0, reaching 0.375 of target 0.90 (capped at the debt outstanding now)",
	}, {
		// each ledger sees half the collateral: capacity 0.5·0.8·10000 = 4000. ledger 0: debt 1000 → 0.75;
		// ledger 1: debt 3000 → 0.25 < 0.3. target 0.5 → debt' 2000 → repay 1000 USDC on ledger 1.
		name:      "weakest ledger",
		params:    "{trigger_health: 0.3, target_health: 0.5, max_amount: 5000000000}",
		loan:      loan("a", 10_000, split(1_000_000_000), split(3_000_000_000)),
		amount:    1_000_000_000,
		ledgerIdx: 1,
		reason:    "health 0.25 < 0.30: repay 1000 USDC on ledger 1 to reach 0.50",
	}, {
		// only ledger 0 (health 0.75) may be repaid: not below 0.3, nothing happens.
		name:   "ledgers restrict the choice",
		params: "{trigger_health: 0.3, target_health: 0.5, max_amount: 5000000000, ledgers: [0]}",
		loan:   loan("a", 10_000, split(1_000_000_000), split(3_000_000_000)),
	}, {
		// health 1 − 1000/8000 = 0.875: above the trigger, nothing happens.
		name:   "healthy loan",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}",
		loan:   loan("a", 10_000, full(1_000_000_000)),
	}, {
		// ends in 1 h < 24 h, no quotes so no refinance: repay all. debt = 1e9 + 2e6 + 100·3600 = 1,002,360,000.
		name:   "repay all near the end of term",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000, repay_all_within: 24h}",
		loan:   loan("a", 10_000, ending),
		amount: 1_002_360_000,
		all:    true,
		reason: "ledger 0 ends in 1h0m0s (repay_all_within 24h0m0s) and no refinance is expected: repay all of ledger 0 (at most 1002.36 USDC)",
	}, {
		// the full debt 1002.36 USDC exceeds max_amount 500: repay 500 USDC, not all.
		name:   "repay all beyond max_amount",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 500000000, repay_all_within: 24h}",
		loan:   loan("a", 10_000, ending),
		amount: 500_000_000,
		reason: "ledger 0 ends in 1h0m0s (repay_all_within 24h0m0s) and no refinance is expected: repay 500 USDC on ledger 0 (the full debt exceeds max_amount)",
	}, {
		// when fires at health 0.0625 but the target 0.06 is already reached: noop.
		name:   "already at target",
		params: "{target_health: 0.06, max_amount: 5000000000}",
		when:   "loan.health < 0.07",
		loan:   loan("a", 10_000, full(7_500_000_000)),
		skips:  []string{key("a") + ":noop"},
	}, {
		// liquidation LTV 0.8; target_ltv 0.85 is above it: an error, no action.
		name:   "target ltv above liquidation ltv",
		params: "{trigger_health: 0.1, target_ltv: 0.85, max_amount: 5000000000}",
		loan:   loan("a", 10_000, full(7_500_000_000)),
		skips:  []string{key("a") + ":error"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var extra []string
			if tc.when != "" {
				extra = append(extra, "when: "+tc.when)
			}
			p := repayPolicy(t, tc.params, extra...)
			res := evaluate(t, p, observe(tc.loan))
			if got := reasons(res); !slices.Equal(got, tc.skips) {
				t.Errorf("skips = %v, want %v", got, tc.skips)
			}
			if tc.amount == 0 {
				if len(res.Actions) != 0 {
					t.Fatalf("got %d actions, want none: %+v", len(res.Actions), res.Actions[0].Reason)
				}
				return
			}
			if len(res.Actions) != 1 {
				t.Fatalf("got %d actions, want 1 (skips %v)", len(res.Actions), res.Skipped)
			}
			a := res.Actions[0]
			checkRepay(t, a, tc.loan.Loan.Address, tc.ledgerIdx, tc.amount, tc.all)
			if a.Reason != tc.reason {
				t.Errorf("reason = %q\n want %q", a.Reason, tc.reason)
			}
		})
	}
}

// checkRepay asserts the exact E2 request and guard bounds of a repay.
func checkRepay(t *testing.T, a Action, addr string, ledgerIdx int, amount uint64, all bool) {
	t.Helper()
	req := a.Request.BuildLoan
	if req == nil || a.Request.Endpoint() != "E2" {
		t.Fatalf("request = %+v, want a build-loan request", a.Request)
	}
	want := market.BuildLoanRequest{Loan: addr, Steps: []market.Step{{Type: market.StepRepay, Params: market.StepParams{
		Loan: addr, RepayParams: []market.RepayParam{{Amount: market.Amount(amount), LedgerIndex: ledgerIdx, RepayAll: all}}}}}}
	if req.Loan != want.Loan || len(req.Steps) != 1 || req.Steps[0].Type != market.StepRepay || req.Steps[0].Params.Loan != addr ||
		!slices.Equal(req.Steps[0].Params.RepayParams, want.Steps[0].Params.RepayParams) {
		t.Errorf("request = %+v, want %+v", *req, want)
	}
	if got := a.Bounds.MaxOutflow; len(got) != 1 || got[usdc] != amount {
		t.Errorf("max outflow = %v, want %d of usdc only", got, amount)
	}
	if a.Bounds.MaxLamports != DefaultMaxFeeLamports {
		t.Errorf("max lamports = %d, want %d", a.Bounds.MaxLamports, DefaultMaxFeeLamports)
	}
}
