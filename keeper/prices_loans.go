package keeper

import (
	"context"

	"github.com/keeper-project/keeper/policies"
)

// priceLoans prices what a repay that may sell collateral needs: the
// principal and token collateral mints of obs's loans, at the oracle. A mint
// it cannot price is named in obs.Unpriced with why: the repay is then
// impossible for that loan, never a blind sale.
func (p *pricer) priceLoans(ctx context.Context, obs *policies.Observation) {
	var mints []string
	seen := map[string]bool{}
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			mints = append(mints, m)
		}
	}
	for i := range obs.Loans {
		it := &obs.Loans[i]
		for _, l := range it.Ledgers {
			add(l.PrincipalMint)
		}
		for _, c := range it.Collateral {
			if !c.IsPool() {
				add(c.AssetMint)
			}
		}
	}
	p.priceMints(ctx, obs, mints)
}
