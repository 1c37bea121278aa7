package policies

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// positionEntry is one CLMM position and its facts.
type positionEntry struct {
	obs   *PositionObservation
	facts PositionFacts
	loan  *loanEntry // the holding loan; nil when it was not observed
	err   error
	// unknown holds the facts that could not be known (by expression name),
	// each with why.
	unknown map[string]string
}

func derivePositions(o *Observation, loans map[string]*loanEntry) []positionEntry {
	out := make([]positionEntry, len(o.Positions))
	for i := range o.Positions {
		po := &o.Positions[i]
		e := &out[i]
		e.obs, e.loan = po, loans[po.Loan]
		st := &po.State
		e.facts = PositionFacts{Loan: po.Loan, PositionMint: st.Request.PositionMint.String(),
			Pool: st.Request.Pool.String(), Dex: st.Request.Dex.Name(), CollateralIndex: po.CollateralIndex}
		switch {
		case st.Err != nil:
			e.err = st.Err
		case e.loan == nil:
			e.err = fmt.Errorf("loan %s holding the position was not observed", po.Loan)
		default:
			fillPosition(&e.facts, st, o.Tokens)
			e.unknown = feesValue(&e.facts, st, o)
		}
	}
	slices.SortStableFunc(out, func(a, b positionEntry) int {
		return strings.Compare(a.facts.PositionMint, b.facts.PositionMint)
	})
	return out
}

// fillPosition computes the range and price facts with clmm's helpers.
func fillPosition(f *PositionFacts, st *clmm.PositionState, tokens map[string]Token) {
	pos, pool := st.Position, st.Pool
	r := pos.Range
	dist := r.Distance(pool.TickCurrent)
	f.TickLower, f.TickUpper, f.TickCurrent = int64(r.Lower), int64(r.Upper), int64(pool.TickCurrent)
	f.TickSpacing = int64(pool.TickSpacing)
	f.InRange = pos.InRange(pool)
	f.DistanceTicks, f.DistancePct = dist.Ticks, dist.Percent
	fillOwed(f, st)
	f.Liquidity = pos.Liquidity.Float64()
	if p, ok := pool.Price(); ok {
		f.Price = p
		return
	}
	t0, ok0 := tokens[pool.Mint0.String()]
	t1, ok1 := tokens[pool.Mint1.String()]
	if ok0 && ok1 {
		f.Price = clmm.PriceFromSqrtX64(pool.SqrtPriceX64, t0.Decimals, t1.Decimals)
		return
	}
	f.Price = pool.RawPrice()
}

// feesValue sets the USD value of the fees owed, or returns why it is
// unknown: the owed fees are, or a token with fees owed has no price (or no
// decimals to apply it to).
func feesValue(f *PositionFacts, st *clmm.PositionState, o *Observation) map[string]string {
	if !f.OwedKnown {
		return map[string]string{factFeesOwedUSD: "the fees owed are unknown"}
	}
	for _, fee := range []struct {
		mint string
		owed uint64
	}{{st.Pool.Mint0.String(), f.FeesOwed0}, {st.Pool.Mint1.String(), f.FeesOwed1}} {
		if fee.owed == 0 {
			continue
		}
		t, ok := o.Tokens[fee.mint]
		if !ok || !(t.PriceUSD > 0) {
			return map[string]string{factFeesOwedUSD: "no price for " + mintName(o, fee.mint) + unpricedBecause(o, fee.mint)}
		}
		f.FeesOwedUSD += float64(fee.owed) / pow10(t.Decimals) * t.PriceUSD
	}
	return nil
}

// fillOwed sets the owed fees and rewards facts from what the reader
// computed, and the stored fees from the position account.
func fillOwed(f *PositionFacts, st *clmm.PositionState) {
	f.FeesStored0, f.FeesStored1 = st.Position.FeesOwed()
	for i, r := range st.Pool.Rewards {
		if r.Initialized() {
			f.RewardMints[i] = r.Mint.String()
		}
	}
	if st.OwedErr != nil {
		return
	}
	f.OwedKnown = true
	f.FeesOwed0, f.FeesOwed1 = st.Owed.Fees0, st.Owed.Fees1
	f.RewardsOwed = st.Owed.Rewards
}

// vaultEntry is one vault and its facts.
type vaultEntry struct {
	vault    *market.Vault
	facts    VaultFacts
	strategy StrategyFacts
	quotes   []QuoteFacts // best quotes for the vault's principal mint
	loops    []LoopFacts  // the loops borrowing the vault's principal mint
	// unknown holds the facts that could not be known (by expression name,
	// such as "rewards_apy"), each with why.
	unknown map[string]string
}

func deriveVaults(o *Observation, now time.Time) []vaultEntry {
	if !o.ChainTime.IsZero() {
		now = o.ChainTime
	}
	out := make([]vaultEntry, len(o.Vaults))
	loops := deriveLoops(o)
	for i := range o.Vaults {
		v := &o.Vaults[i]
		s := v.VaultStrategy.Strategy
		m := market.ComputeVaultMetrics(*v, now, rewardPrice(o.Tokens, v.PrincipalMint))
		strategy, unknownTerms := strategyFacts(v)
		unknown := unknownRewards(o, v.PrincipalMint, m.MissingPrices)
		if unknown == nil {
			unknown = unknownTerms
		} else {
			maps.Copy(unknown, unknownTerms)
		}
		out[i] = vaultEntry{vault: v, strategy: strategy, quotes: quoteFacts(o.Quotes, v.PrincipalMint),
			loops: loopsOf(loops, v.PrincipalMint), unknown: unknown}
		out[i].facts = VaultFacts{Address: v.Address, Strategy: s.Address, PrincipalMint: v.PrincipalMint,
			TVL: m.TVL, LendingAPY: m.LendingAPY, RewardsAPY: m.RewardsAPY, TotalAPY: m.TotalAPY,
			Utilisation: ratio(s.CurrentDeployedAmount.Float64(), m.TVL), Idle: s.TokenBalance.Uint64(),
			OriginationsEnabled: s.OriginationsEnabled}
	}
	slices.SortStableFunc(out, func(a, b vaultEntry) int { return strings.Compare(a.facts.Address, b.facts.Address) })
	return out
}

// unknownRewards returns the vault facts a missing price leaves unknown:
// rewards APY and with it total APY, when an active reward schedule's mint,
// or the principal mint they are valued in, has no price.
func unknownRewards(o *Observation, principal string, missing []string) map[string]string {
	if len(missing) == 0 {
		return nil
	}
	var why string
	if pt, ok := o.Tokens[principal]; !ok || !(pt.PriceUSD > 0) {
		why = "no price for the principal mint " + mintName(o, principal) + unpricedBecause(o, principal)
	} else {
		why = "no price for the reward mint " + mintName(o, missing[0]) + unpricedBecause(o, missing[0])
		if len(missing) > 1 {
			why += fmt.Sprintf(" (and %d more reward mints)", len(missing)-1)
		}
	}
	return map[string]string{factRewardsAPY: why, factTotalAPY: why}
}

// mintName is a mint's symbol and address, or its address.
func mintName(o *Observation, mint string) string {
	if t, ok := o.Tokens[mint]; ok && t.Symbol != "" {
		return t.Symbol + " (" + mint + ")"
	}
	return mint
}

// unpricedBecause is ": why" when the runtime said why mint has no price.
func unpricedBecause(o *Observation, mint string) string {
	if why, ok := o.Unpriced[mint]; ok {
		return ": " + why
	}
	return ""
}

// rewardPrice prices reward smallest units in principal smallest units
// from the Tokens' USD prices and decimals (market.RewardPrice).
func rewardPrice(tokens map[string]Token, principal string) market.RewardPriceFunc {
	pt, ok := tokens[principal]
	if !ok || !(pt.PriceUSD > 0) {
		return nil
	}
	return func(mint string) (float64, bool) {
		rt, ok := tokens[mint]
		if !ok || !(rt.PriceUSD > 0) {
			return 0, false
		}
		return market.RewardPrice(rt.PriceUSD, int(rt.Decimals), pt.PriceUSD, int(pt.Decimals)), true
	}
}

// strategyFacts returns the facts of v's strategy, and the facts of its
// terms that are unknown (by expression name, with why): a term whose
// maxAllocationPct is not a percentage has max_allocation_pct 0 and
// unknown, so an expression over it is not evaluated.
func strategyFacts(v *market.Vault) (StrategyFacts, map[string]string) {
	var unknown map[string]string
	s := v.VaultStrategy.Strategy
	f := StrategyFacts{Address: s.Address, Authority: s.Authority, Idle: s.TokenBalance.Uint64(),
		Deployed: s.CurrentDeployedAmount.Uint64(), External: s.ExternalYieldAmount.Uint64(),
		OutstandingInterest: s.OutstandingInterestAmount.Uint64(), OriginationsEnabled: s.OriginationsEnabled}
	for _, t := range v.VaultStrategy.CollateralTerms {
		tf := TermFacts{Collateral: t.AssetIdentifier, CurrentAllocation: t.CurrentAllocation.Uint64(),
			APYs: make(map[string]float64, len(t.DurationsAndApys))}
		pct, err := strconv.ParseFloat(t.MaxAllocationPct, 64)
		switch {
		case err != nil || math.IsNaN(pct) || math.IsInf(pct, 0) || pct < 0:
			if unknown == nil {
				unknown = map[string]string{factMaxAllocationPct: fmt.Sprintf("the term of collateral %s has maxAllocationPct %s, not a percentage",
					t.AssetIdentifier, strictyaml.Excerpt(t.MaxAllocationPct))}
			}
		default:
			tf.MaxAllocationPct = pct
		}
		for k, apy := range t.DurationsAndApys {
			if d, err := market.ParseDurationKey(k); err == nil {
				tf.APYs[d.String()] = apy.Fraction()
			}
		}
		f.Terms = append(f.Terms, tf)
	}
	slices.SortFunc(f.Terms, func(a, b TermFacts) int { return strings.Compare(a.Collateral, b.Collateral) })
	return f, unknown
}

func quoteFacts(qs []QuoteObservation, mint string) []QuoteFacts {
	var out []QuoteFacts
	for _, q := range qs {
		if q.PrincipalMint != mint {
			continue
		}
		out = append(out, QuoteFacts{Collateral: q.Quote.CollateralIdentifier, PrincipalMint: q.PrincipalMint,
			Duration: q.Duration.String(), APY: q.Quote.Apy.Fraction(), LTV: q.Quote.Ltv.Fraction(),
			LQT: q.Quote.Lqt.Fraction(), Amount: q.Quote.Amount.Uint64(), Strategy: q.Quote.Strategy})
	}
	slices.SortStableFunc(out, func(a, b QuoteFacts) int {
		return cmp.Or(strings.Compare(a.Collateral, b.Collateral), strings.Compare(a.Duration, b.Duration))
	})
	return out
}

// ratio returns num/den, or 0 when den is not positive.
func ratio(num, den float64) float64 {
	if !(den > 0) {
		return 0
	}
	return num / den
}
