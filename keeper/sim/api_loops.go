package sim

import (
	"slices"

	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// loopInfo serves E12: the loops whose identifier (slug, or "{PRINCIPAL_MINT}-{COLLATERAL_MINT}") is
// among identifiers and that carry one of tags; an empty filter matches everything, and the two
// filters combine. Figures the scenario does not fix are computed from the loans (loopFigures).
func (a *vaultsAPI) loopInfo(c *call, q apiwire.LoopsQuery) (any, error) {
	out := []apiwire.Loop{}
	for _, l := range a.w.Loops {
		pair := l.Principal.Address.String() + "-" + l.Collateral.Address.String()
		idOK := len(q.Identifiers) == 0 || slices.Contains(q.Identifiers, l.Identifier) || slices.Contains(q.Identifiers, pair)
		tagOK := len(q.Tags) == 0 || apiwire.AnyIn(q.Tags, l.Tags)
		if !idOK || !tagOK {
			continue
		}
		rec, err := a.loopFigures(l)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// loopFigures fills a loop record's collateralDeposited and wAvgApy from the loop's open loans: those
// with a ledger in the loop's principal mint and a collateral entry of its collateral mint.
// collateralDeposited is their collateral of that mint in whole tokens. wAvgApy is the average of each
// loan's net APY weighted by its collateral's USD value, where a loan's net APY is what its equity
// earns: (collateral USD · the collateral's own yield − debt USD · the ledger's APY) / (collateral USD
// − debt USD); loans without positive equity are left out of the average.
func (a *vaultsAPI) loopFigures(l programs.Loop) (apiwire.Loop, error) {
	rec := apiwire.Loop{Identifier: l.Identifier, PrincipalMint: l.Principal.Address.String(),
		CollateralMint: l.Collateral.Address.String(), Tags: l.Tags}
	if l.MaxApy != nil {
		v := apiwire.Number(*l.MaxApy)
		rec.MaxApy = &v
	}
	sn := a.w.Snapshot(a.clock.Now())
	var deposited, weighted, weight float64
	for _, info := range a.w.Loans {
		st, err := a.accts.loan(info)
		if err != nil {
			return rec, err
		}
		coll, debtUSD, apy, ok := loopPosition(st, l)
		if !ok {
			continue
		}
		deposited += float64(coll) / units.Pow10(l.Collateral.Decimals)
		collUSD := sn.Usd(l.Collateral.Address, coll)
		debtUSD = debtUSD / units.Pow10(l.Principal.Decimals) * sn.Price(l.Principal.Address)
		if equity := collUSD - debtUSD; equity > 0 {
			weighted += collUSD * (collUSD*sn.YieldAPY(l.Collateral.Address) - debtUSD*apy) / equity
			weight += collUSD
		}
	}
	rec.CollateralDeposited = apiwire.Number(deposited)
	if l.FixedDeposited != nil {
		rec.CollateralDeposited = apiwire.Number(*l.FixedDeposited)
	}
	if weight > 0 {
		rec.WAvgApy = apiwire.Number(weighted / weight)
	}
	if l.FixedWAvgApy != nil {
		rec.WAvgApy = apiwire.Number(*l.FixedWAvgApy)
	}
	return rec, nil
}

// loopPosition returns, for an open loan in the loop's pair, its collateral of the loop's collateral
// mint (base units), its outstanding debt in the principal mint (base units) and that debt's APY
// weighted by amount (a fraction).
func loopPosition(st *state.Loan, l programs.Loop) (coll uint64, debt, apy float64, ok bool) {
	if st.Closed {
		return 0, 0, 0, false
	}
	for _, c := range st.Collateral {
		if c.AssetMint == l.Collateral.Address.String() && c.AssetIdentifier == l.Collateral.Address.String() {
			coll += c.Amount
		}
	}
	var apyDebt float64
	for _, g := range st.Ledgers {
		if g.PrincipalMint != l.Principal.Address.String() || g.PrincipalDue <= g.PrincipalRepaid {
			continue
		}
		owed := float64(g.PrincipalDue - g.PrincipalRepaid + g.InterestOutstanding)
		debt += owed
		apyDebt += owed * float64(g.Apy) / 1e6
	}
	if coll == 0 || debt == 0 {
		return 0, 0, 0, false
	}
	return coll, debt, apyDebt / debt, true
}
