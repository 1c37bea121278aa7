package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// poolLoan is loan(label, 10,000 USD, a 7,500 USDC ledger) whose one
// collateral is a CLMM position: identifier the pool id, mint the position mint.
func poolLoan(label string) market.LoanItem {
	it := loan(label, 10_000, full(7_500_000_000))
	pool := key("pool " + label)
	it.Collateral[0].AssetIdentifier, it.Collateral[0].AssetMint = pool, key("position "+label)
	it.CollateralBreakdown[0].AssetIdentifier = pool
	return it
}

// TestRefinanceExpectedUnknownForPoolCollateral: keeper asks no quote
// against pool collateral, so a loan whose collateral is a pool has
// refinance_expected unknown: a `when` reading it is not evaluated on a
// false that stands for "not asked" and the loan is skipped with the
// reason; a `when` not reading it evaluates the loan; a token-collateral
// loan without a covering quote is known not to refinance and fires.
func TestRefinanceExpectedUnknownForPoolCollateral(t *testing.T) {
	tok, pool := loan("tok", 10_000, full(7_500_000_000)), poolLoan("pool")
	obs := observe(tok, pool)
	alert := func(when string) *Policy {
		return parseOne(t, policyYAML("name: a", "kind: alert", `schedule: "@every 1m"`,
			"select: {target: loans}", "when: '"+when+"'", "params: {message: m}"))
	}

	res := evaluate(t, alert("!loan.refinance_expected"), obs)
	if len(res.Actions) != 1 || res.Actions[0].Target != tok.Loan.Address {
		t.Errorf("actions %v, want the token-collateral loan's alert alone", jsonOf(t, res.Actions))
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Target != pool.Loan.Address || res.Skipped[0].Reason != SkipNoData {
		t.Fatalf("skipped %v, want the pool loan skipped for no data", jsonOf(t, res.Skipped))
	}
	for _, want := range []string{"loan.refinance_expected is unknown", "collateral 0 is pool collateral (pool " + key("pool pool") + ")", "SPL mint"} {
		if !strings.Contains(res.Skipped[0].Detail, want) {
			t.Errorf("skip detail %q does not say %q", res.Skipped[0].Detail, want)
		}
	}

	if res := evaluate(t, alert("loan.health < 1"), obs); len(res.Actions) != 2 || len(res.Skipped) != 0 {
		t.Errorf("a when without refinance_expected: actions %v, skipped %v; want both loans evaluated",
			jsonOf(t, res.Actions), jsonOf(t, res.Skipped))
	}
}

// TestRefinanceExpectedKnownDespitePoolCollateral: a quote against a
// loan's token collateral that covers its debt makes refinance_expected
// true though another collateral is a pool; an inactive pool loan is known
// not to refinance.
func TestRefinanceExpectedKnownDespitePoolCollateral(t *testing.T) {
	it := poolLoan("mixed")
	it.Collateral = append(it.Collateral, market.Collateral{AssetIdentifier: coll, AssetMint: coll, Index: 1, Loan: it.Loan.Address, Amount: 1})
	it.CollateralBreakdown = append(it.CollateralBreakdown, market.CollateralUSD{AssetIdentifier: coll, Usd: 10_000})
	it.CollateralUsd = 20_000
	l := &it.Ledgers[0]
	l.Weights, l.LqtRatios = append(l.Weights, 1_000_000), append(l.LqtRatios, 800_000)
	obs := observe(it)
	obs.Quotes = []QuoteObservation{{PrincipalMint: usdc, Duration: days(30),
		Quote: market.Quote{CollateralIdentifier: coll, Amount: 8_000_000_000, Ltv: 900_000}}}
	if le := obs.facts(t0).loans[0]; le.err != nil || !le.facts.RefinanceExpected || le.unknown != nil {
		t.Errorf("covered by a token quote: refinance expected %v, unknown %v, err %v; want true and known",
			le.facts.RefinanceExpected, le.unknown, le.err)
	}
	obs.Quotes = nil
	if le := obs.facts(t0.Add(time.Second)).loans[0]; le.unknown[factRefinanceExpected] == "" {
		t.Errorf("without quotes: unknown %v; want refinance_expected unknown (the pool was not asked)", le.unknown)
	}

	closed := poolLoan("closed")
	closed.Loan.Closed = true
	if le := observe(closed).facts(t0).loans[0]; le.err != nil || le.facts.RefinanceExpected || le.unknown != nil {
		t.Errorf("closed: refinance expected %v, unknown %v, err %v; want false and known", le.facts.RefinanceExpected, le.unknown, le.err)
	}
}
