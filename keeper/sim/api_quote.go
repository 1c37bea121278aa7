package sim

import (
	"cmp"
	"math"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// bestQuote serves E6. For each requested collateral, every strategy lending the principal mint with
// originations enabled and an APY for the collateral and the duration is a candidate, except those
// whose external yield source is excluded and, when the user-wallet header is sent, the wallet's own
// strategies (a wallet is never quoted its own liquidity). A candidate offers
//
//	min(idle − liquidityBuffer, maxAllocationPct% × TVL − current allocation, borrow capacity)
//
// where the borrow capacity (only when the request gives a collateral amount) is the collateral's USD
// value (its oracle price, or priceOverride) × ltv, in principal units. Candidates offering nothing
// are dropped. The best candidate has the lowest APY; ties go to the larger amount, then to the lower
// strategy address. A collateral without candidates is left out of the answer.
func (a *vaultsAPI) bestQuote(c *call, q apiwire.QuoteRequest) (any, error) {
	if err := validateQuote(q); err != nil {
		return nil, err
	}
	sn := a.w.Snapshot(a.clock.Now())
	views, err := a.views.strategyViews(sn.At.Unix())
	if err != nil {
		return nil, err
	}
	key := apiwire.StrategyDuration{DurationType: q.DurationType, Duration: q.Duration}.Key()
	out := []apiwire.Quote{}
	for _, cf := range q.CollateralFilter {
		var cands []apiwire.Quote
		for _, info := range a.w.Strategies {
			if qt, ok := a.quoteFrom(views[info.Address], q, cf, key, c.wallet, sn); ok {
				cands = append(cands, qt)
			}
		}
		if len(cands) == 0 {
			continue
		}
		out = append(out, slices.MinFunc(cands, compareQuotes))
	}
	return out, nil
}

// compareQuotes orders quotes best first.
func compareQuotes(a, b apiwire.Quote) int {
	if c := cmp.Compare(a.Apy, b.Apy); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Amount, a.Amount); c != 0 {
		return c
	}
	return cmp.Compare(a.Strategy, b.Strategy)
}

// validateQuote checks an E6 request.
func validateQuote(q apiwire.QuoteRequest) error {
	switch {
	case q.PrincipalMint == "":
		return apiwire.BadRequest("principalMint is required")
	case len(q.CollateralFilter) == 0:
		return apiwire.BadRequest("collateralFilter must name at least one collateral")
	case q.DurationType > apiwire.DurationYears:
		return apiwire.BadRequest("durationType %d is not supported (0 days, 1 weeks, 2 months, 3 minutes, 4 years)", q.DurationType)
	}
	if err := validateAddresses("principalMint", []string{q.PrincipalMint}); err != nil {
		return err
	}
	for i, cf := range q.CollateralFilter {
		if cf.AssetData.Spl == nil || cf.AssetData.Spl.Mint == "" {
			return apiwire.BadRequest("collateralFilter[%d].assetData: the Spl variant with a mint is required", i)
		}
		if _, err := solana.PublicKeyFromBase58(cf.AssetData.Spl.Mint); err != nil {
			return apiwire.BadRequest("collateralFilter[%d].assetData.Spl.mint: %q is not a base58 address", i, cf.AssetData.Spl.Mint)
		}
		if cf.PriceOverride != nil && (math.IsNaN(*cf.PriceOverride) || math.IsInf(*cf.PriceOverride, 0)) {
			return apiwire.BadRequest("collateralFilter[%d].priceOverride must be a finite number", i)
		}
	}
	return nil
}

// quoteFrom returns what a strategy offers for one collateral, if anything.
func (a *vaultsAPI) quoteFrom(v *strategyView, q apiwire.QuoteRequest, cf apiwire.CollateralFilter, key string,
	wallet solana.PublicKey, sn *programs.Snapshot) (apiwire.Quote, bool) {
	mint := cf.AssetData.Spl.Mint
	t, ok := v.st.Term(mint)
	switch {
	case !ok || v.st.PrincipalMint != q.PrincipalMint || !v.st.OriginationsEnabled:
		return apiwire.Quote{}, false
	case slices.Contains(q.ExcludedExternalYield, v.st.ExternalYieldSource):
		return apiwire.Quote{}, false
	case !wallet.IsZero() && v.st.Authority == wallet.String():
		return apiwire.Quote{}, false
	}
	apy, ok := t.Apys[key]
	if !ok {
		return apiwire.Quote{}, false
	}
	amount := float64(v.idle) - float64(v.st.LiquidityBuffer)
	if pctCap, err := units.ParsePercent(t.MaxAllocationPct); err == nil {
		amount = min(amount, pctCap/100*float64(v.tvl())-float64(v.alloc[mint]))
	}
	if cf.Amount > 0 {
		amount = min(amount, a.borrowCapacity(cf, v.info.Mint, t.Ltv, sn))
	}
	if amount < 1 {
		return apiwire.Quote{}, false
	}
	return apiwire.Quote{Amount: apiwire.Amount(math.Floor(amount)), Apy: apiwire.CBPS(apy), CollateralIdentifier: mint,
		Lqt: apiwire.CBPS(t.Lqt), Ltv: apiwire.CBPS(t.Ltv), Strategy: v.info.Address.String()}, true
}

// borrowCapacity returns how much principal (base units) the collateral amount supports at ltv.
func (a *vaultsAPI) borrowCapacity(cf apiwire.CollateralFilter, principal *programs.Mint, ltv int64, sn *programs.Snapshot) float64 {
	k := solana.MustPublicKeyFromBase58(cf.AssetData.Spl.Mint)
	m, ok := a.w.MintByAddr[k]
	if !ok {
		return 0
	}
	price := sn.Price(k)
	if cf.PriceOverride != nil {
		price = *cf.PriceOverride
	}
	usd := units.WholeTokens(uint64(cf.Amount), m.Decimals) * price * float64(ltv) / 1e6
	pp := sn.Price(principal.Address)
	if pp <= 0 {
		return 0
	}
	return usd / pp * units.Pow10(principal.Decimals)
}
