package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// pnl returns a loan's PnL details at the snapshot: the borrower's contributions and net inflows,
// USD and token PnL, the loan's markers, and the series (see pnlSeries).
func (s *Sim) pnl(v *loanView, sn *programs.Snapshot) *market.PnL {
	in, it := v.st.Inflow, v.item
	out := &market.PnL{
		CollateralPnl:                        it.CollateralUsd - in.CollateralUSD,
		InitialUserCollateralContribution:    in.InitialCollateral,
		InitialUserCollateralContributionUsd: in.InitialCollateralUSD,
		NetCollateralInflow:                  in.CollateralTokens,
		NetCollateralUsdInflow:               in.CollateralUSD,
		NetPrincipalInflow:                   in.PrincipalTokens,
		NetPrincipalUsdInflow:                in.PrincipalUSD,
		TokenUsdPnl:                          v.tokenUsdPnl,
		UsdPnl:                               it.PnlUsd,
		Markers:                              append([]market.PnLMarker{}, v.st.Markers...),
	}
	out.CollateralPnlPctChange = pct(out.CollateralPnl, in.CollateralUSD)
	out.UsdPnlPctChange = pct(it.PnlUsd, in.InitialCollateralUSD)
	s.pnlSeries(out, v, sn)
	return out
}

// pnlSeries fills the PnL series: the loan's start (at the contribution it opened with) and the
// snapshot.
func (s *Sim) pnlSeries(out *market.PnL, v *loanView, sn *programs.Snapshot) {
	in, it := v.st.Inflow, v.item
	colMint, price := "", 0.0
	if len(v.st.Collateral) > 0 {
		colMint = v.st.Collateral[0].AssetMint
		if k, err := solana.PublicKeyFromBase58(colMint); err == nil {
			price = sn.Price(k)
		}
	}
	start, now := float64(v.st.StartTime), float64(v.now)
	debtUsd := it.PrincipalUsd + it.InterestAccruedUsd
	out.PnlData.DataPoints = []market.PnLPoint{
		{Date: start, CollateralValueUsd: in.InitialCollateralUSD, NetCollateralTransferUsdAmount: in.InitialCollateralUSD,
			NetCollateralTransferTokenAmount: in.InitialCollateral, PrincipalValueUsd: -in.PrincipalUSD,
			NetPositionValueUsd: in.InitialCollateralUSD + in.PrincipalUSD},
		{Date: now, CollateralPrice: price, CollateralValueUsd: it.CollateralUsd, NetCollateralTransferUsdAmount: in.CollateralUSD,
			NetCollateralTransferTokenAmount: in.CollateralTokens, NetPositionValueUsd: it.CollateralUsd - debtUsd,
			PrincipalValueUsd: debtUsd, TokenPnl: v.tokenUsdPnl / nonZero(price), UsdPnl: it.PnlUsd},
	}
	out.PositionValueData.DataPoints = []market.PositionValuePoint{{CollateralMint: colMint, Date: now,
		CollateralTokenAmount: in.CollateralTokens, CollateralTokenAmountOfDebt: debtUsd / nonZero(price),
		CollateralValueUsd: it.CollateralUsd, NetPositionValueUsd: it.CollateralUsd - debtUsd, PrincipalValueUsd: debtUsd,
		NetPositionValueTokenAmount: (it.CollateralUsd - debtUsd) / nonZero(price)}}
	borrow := 0.0
	if it.PrincipalUsd > 0 {
		borrow = v.apyWeighted / it.PrincipalUsd
	}
	collApy := it.CollateralYieldPct / 100
	out.RateHistoryData.DataPoints = []market.RatePoint{{CollateralMint: colMint, Date: now, BorrowApy: borrow,
		CollateralApy: collApy, NetApy: collApy - borrow*it.PrincipalUsd/nonZero(it.CollateralUsd)}}
}

// pct returns 100·a/b, or 0 when b is 0.
func pct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * a / b
}

// nonZero returns v, or 1 when v is 0, for ratios that must not divide by zero.
func nonZero(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}
