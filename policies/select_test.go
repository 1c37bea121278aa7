package policies

import (
	"slices"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

// TestSelectExclusions drops loans by excluded principal mint and by
// excluded collateral, mint or pool id, and sends the exclusions to E3
// with excluded collateral in both lists the spec requires for pools.
func TestSelectExclusions(t *testing.T) {
	pool, lpMint, other := key("pool"), key("lp mint"), key("other principal")
	withPool := lowLoan("pool loan")
	withPool.Collateral = append(withPool.Collateral, market.Collateral{AssetIdentifier: pool, AssetMint: lpMint, Index: 1})
	otherPrincipal := lowLoan("other loan")
	otherPrincipal.Ledgers[0].PrincipalMint = other
	plain := lowLoan("plain loan")
	p := parseOne(t, policyYAML("name: low", "kind: alert", `schedule: "@every 1m"`,
		"select: {target: loans, exclude_principal_mints: ["+other+"], exclude_collateral: ["+pool+"]}",
		"when: loan.health < 0.1", `params: {severity: warning, message: "low"}`))
	q := p.Reads(wallet).Loans
	if !slices.Equal(q.ExcludePrincipalMints, []string{other}) || !slices.Equal(q.ExcludeCollateralMints, []string{pool}) ||
		!slices.Equal(q.ExcludeCollateralIdentifiers, []string{pool}) {
		t.Errorf("query %+v: want the principal excluded and the pool in both collateral exclusions", q)
	}
	// The market may not have applied them (the simulator, like the market, misses a pool id sent only
	// as a mint): keeper applies them again.
	res := evaluate(t, p, observe(withPool, otherPrincipal, plain))
	var fired []string
	for _, a := range res.Actions {
		fired = append(fired, a.Target)
	}
	if res.Evaluated != 1 || !slices.Equal(fired, []string{plain.Loan.Address}) {
		t.Errorf("evaluated %d, fired %v: want only the plain loan", res.Evaluated, fired)
	}
}

func TestSelectExclusionsChecked(t *testing.T) {
	_, err := Parse("test.yaml", []byte(policyYAML("name: w", "kind: claim-withdrawals", `schedule: "@every 1m"`,
		"select: {vaults: ["+key("earn")+"], exclude_collateral: [not-an-address]}")))
	if err == nil || !strings.Contains(err.Error(), "select.exclude_collateral does not apply to withdrawals") {
		t.Errorf("error %v, want exclude_collateral refused for withdrawals", err)
	}
}
