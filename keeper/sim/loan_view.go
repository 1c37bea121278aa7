package sim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// secondsPerDay converts per-second figures to daily ones.
const secondsPerDay = 86_400

// loanView is one loan as the loans-info endpoint sees it at a snapshot.
type loanView struct {
	info    *programs.Loan
	addr    string // info's address, base58
	st      *state.Loan
	item    apiwire.LoanItem
	lenders map[string]bool // strategy addresses and their authorities
	now     int64
	decoded *decodedStates // nil: decode the accounts the view needs

	// Aggregate building blocks.
	dailyInterestUsd, dailyCollYieldUsd, dailyPrinYieldUsd float64
	apyWeighted, collYieldWeighted, tokenUsdPnl            float64
}

// views are the loans and strategies of the market as its listings show them, built from their
// accounts; the loan views of the latest state are cached for loans-info.
type views struct {
	*world
	loans loanCache // loan views of the current state, for loans-info
}

// loanViews reads every loan at a snapshot, taking the decoded accounts from
// decoded. The caller holds the market's lock.
func (s *views) loanViews(sn *programs.Snapshot, decoded *decodedStates) ([]*loanView, error) {
	out := make([]*loanView, 0, len(s.w.Loans))
	for _, info := range s.w.Loans {
		st, err := decoded.loan(s.accts, info)
		if err != nil {
			return nil, err
		}
		v := &loanView{info: info, addr: decoded.address(info), st: st, now: sn.At.Unix(), lenders: map[string]bool{}, decoded: decoded}
		if err := s.fillLoanItem(v, sn); err != nil {
			return nil, fmt.Errorf("loan %s: %w", info.Name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// fillLoanItem computes a loan's summary item.
func (s *views) fillLoanItem(v *loanView, sn *programs.Snapshot) error {
	st := v.st
	v.item = apiwire.LoanItem{
		Loan: apiwire.Loan{Address: v.addr, Borrower: st.Borrower, Bump: st.Bump, Closed: st.Closed,
			LastInteractedTime: apiwire.UnixTime(st.LastInteractedTime), LastInteractedTxn: st.LastInteractedTxn,
			LoanStatus: apiwire.LoanStatus(st.Status), Nonce: st.Nonce, StartTime: apiwire.UnixTime(st.StartTime),
			WriteVersion: st.WriteVersion, ID: st.ID},
		LoanType:            apiwire.LoanType(st.LoanType),
		Collateral:          []apiwire.Collateral{},
		Ledgers:             []apiwire.Ledger{},
		CollateralBreakdown: []apiwire.CollateralUSD{},
	}
	if err := s.fillCollateral(v, sn); err != nil {
		return err
	}
	s.fillLedgers(v, sn)
	it := &v.item
	it.PnlUsd = it.CollateralUsd - it.PrincipalUsd - it.InterestAccruedUsd - (st.Inflow.CollateralUSD + st.Inflow.PrincipalUSD)
	it.PrincipalUsdRisk = it.PrincipalUsd + it.InterestAccruedUsd
	if it.CollateralUsd > 0 {
		it.CollateralYieldPct = v.collYieldWeighted / it.CollateralUsd * 100
	}
	if len(st.Collateral) > 0 {
		first := v.decoded.mustKey(st.Collateral[0].AssetMint)
		if m, ok := s.w.MintByAddr[first]; ok {
			v.tokenUsdPnl = (units.WholeTokens(st.Collateral[0].Amount, m.Decimals) - st.Inflow.CollateralTokens) * sn.Price(first)
		}
	}
	return nil
}

// fillCollateral values the collateral entries.
func (s *views) fillCollateral(v *loanView, sn *programs.Snapshot) error {
	it := &v.item
	for _, col := range v.st.Collateral {
		it.Collateral = append(it.Collateral, apiwire.Collateral{
			Amount: apiwire.Amount(col.Amount), AssetIdentifier: col.AssetIdentifier, AssetMint: col.AssetMint,
			AssetType: apiwire.AssetType(col.AssetType), Index: col.Index, Loan: v.addr, ID: col.ID,
			LastInteractedTime: apiwire.UnixTime(col.LastInteractedTime), LastInteractedTxn: col.LastInteractedTxn,
			WriteVersion: col.WriteVersion})
		usd, yield, err := s.collateralUSD(v.decoded, col, sn)
		if err != nil {
			return err
		}
		it.CollateralBreakdown = append(it.CollateralBreakdown, apiwire.CollateralUSD{AssetIdentifier: col.AssetIdentifier, Usd: usd})
		it.CollateralUsd += usd
		it.CollateralUsdRisk += usd * float64(maxLqt(v.st, col.Index)) / 1e6
		v.collYieldWeighted += usd * yield
		v.dailyCollYieldUsd += usd * yield / 365
		it.PendingYieldUsd += usd * yield * float64(max(0, v.now-col.LastInteractedTime)) / apiwire.SecondsPerYear
	}
	return nil
}

// collateralUSD values one collateral entry and returns its yield APY.
func (s *views) collateralUSD(decoded *decodedStates, col state.Collateral, sn *programs.Snapshot) (float64, float64, error) {
	mint, err := decoded.key(col.AssetMint)
	if err != nil {
		return 0, 0, err
	}
	if col.Dex == "" {
		return sn.Usd(mint, col.Amount), sn.YieldAPY(mint), nil
	}
	pos, ok := s.w.PosByMint[mint]
	if !ok {
		return 0, 0, fmt.Errorf("unknown position mint %s", mint)
	}
	ps, pool, err := s.accts.position(pos)
	if err != nil {
		return 0, 0, err
	}
	return sn.PositionUSD(pos.Pool, pool, ps), 0, nil
}

// maxLqt returns the highest liquidation threshold any ledger gives a collateral slot.
func maxLqt(st *state.Loan, index int) int64 {
	var best int64
	for _, l := range st.Ledgers {
		if index < len(l.LqtRatios) {
			best = max(best, l.LqtRatios[index])
		}
	}
	return best
}

// fillLedgers reports the ledgers with interest accrued to the snapshot.
func (s *views) fillLedgers(v *loanView, sn *programs.Snapshot) {
	it := &v.item
	for _, l := range v.st.Ledgers {
		mint := v.decoded.mustKey(l.PrincipalMint)
		interest := l.InterestAt(v.now)
		ips := l.InterestPerSecond()
		if v.now >= l.EndTime {
			ips = 0
		}
		it.Ledgers = append(it.Ledgers, apiwire.Ledger{
			Apy: apiwire.CBPS(l.Apy), Duration: l.Duration, DurationType: apiwire.DurationType(l.DurationType),
			StartTime: apiwire.UnixTime(l.StartTime), EndTime: apiwire.UnixTime(l.EndTime),
			InterestOutstanding: apiwire.Amount(interest), InterestPerSecond: apiwire.Number(ips),
			LastInterestUpdatedTime: apiwire.UnixTime(max(l.LastInterestUpdatedTime, min(v.now, l.EndTime))),
			LastInteractedTime:      apiwire.UnixTime(l.LastInteractedTime), LastInteractedTxn: l.LastInteractedTxn,
			LedgerIndex: l.Index, Loan: v.addr, LqtRatios: cbpsRow(l.LqtRatios),
			LtvRatios: cbpsRow(l.LtvRatios), Weights: cbpsRow(l.Weights), MarketInformation: l.MarketInformation,
			PrincipalDue: apiwire.Amount(l.PrincipalDue), PrincipalMint: l.PrincipalMint,
			PrincipalRepaid: apiwire.Amount(l.PrincipalRepaid), Status: apiwire.LedgerStatus(l.Status),
			Strategy: l.Strategy, ID: l.ID, IsLoop: apiwire.Number(l.IsLoop), WriteVersion: l.WriteVersion,
		})
		principalUsd := sn.Usd(mint, l.Outstanding())
		it.PrincipalUsd += principalUsd
		it.InterestAccruedUsd += sn.Usd(mint, interest)
		v.dailyInterestUsd += sn.Usdf(mint, ips*secondsPerDay)
		v.dailyPrinYieldUsd += principalUsd * sn.YieldAPY(mint) / 365
		v.apyWeighted += principalUsd * float64(l.Apy) / 1e6
		v.lenders[l.Strategy] = true
		if strat, ok := s.w.StratByAdr[v.decoded.mustKey(l.Strategy)]; ok {
			if authority, ok := v.decoded.authority(s.accts, strat); ok {
				v.lenders[authority] = true
			}
		}
	}
}

// cbpsRow converts a ratio row.
func cbpsRow(in []int64) []apiwire.CBPS {
	out := make([]apiwire.CBPS, len(in))
	for i, v := range in {
		out[i] = apiwire.CBPS(v)
	}
	return out
}

// pnl returns a loan's PnL details at the snapshot: the borrower's contributions and net inflows,
// USD and token PnL, the loan's markers, and the series (see pnlSeries).
func (s *views) pnl(v *loanView, sn *programs.Snapshot) *apiwire.PnL {
	in, it := v.st.Inflow, v.item
	out := &apiwire.PnL{
		CollateralPnl:                        it.CollateralUsd - in.CollateralUSD,
		InitialUserCollateralContribution:    in.InitialCollateral,
		InitialUserCollateralContributionUsd: in.InitialCollateralUSD,
		NetCollateralInflow:                  in.CollateralTokens,
		NetCollateralUsdInflow:               in.CollateralUSD,
		NetPrincipalInflow:                   in.PrincipalTokens,
		NetPrincipalUsdInflow:                in.PrincipalUSD,
		TokenUsdPnl:                          v.tokenUsdPnl,
		UsdPnl:                               it.PnlUsd,
		Markers:                              []apiwire.PnLMarker{},
	}
	for _, m := range v.st.Markers {
		out.Markers = append(out.Markers, apiwire.PnLMarker{Date: float64(m.Date), Type: m.Type,
			Metadata: apiwire.MarkerMetadata{NewCollateralMint: m.NewCollateralMint, PreviousCollateralMint: m.PreviousCollateralMint}})
	}
	out.CollateralPnlPctChange = pct(out.CollateralPnl, in.CollateralUSD)
	out.UsdPnlPctChange = pct(it.PnlUsd, in.InitialCollateralUSD)
	s.pnlSeries(out, v, sn)
	return out
}

// pnlSeries fills the PnL series: the loan's start (at the contribution it opened with) and the
// snapshot.
func (s *views) pnlSeries(out *apiwire.PnL, v *loanView, sn *programs.Snapshot) {
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
	out.PnlData.DataPoints = []apiwire.PnLPoint{
		{Date: start, CollateralValueUsd: in.InitialCollateralUSD, NetCollateralTransferUsdAmount: in.InitialCollateralUSD,
			NetCollateralTransferTokenAmount: in.InitialCollateral, PrincipalValueUsd: -in.PrincipalUSD,
			NetPositionValueUsd: in.InitialCollateralUSD + in.PrincipalUSD},
		{Date: now, CollateralPrice: price, CollateralValueUsd: it.CollateralUsd, NetCollateralTransferUsdAmount: in.CollateralUSD,
			NetCollateralTransferTokenAmount: in.CollateralTokens, NetPositionValueUsd: it.CollateralUsd - debtUsd,
			PrincipalValueUsd: debtUsd, TokenPnl: v.tokenUsdPnl / nonZero(price), UsdPnl: it.PnlUsd},
	}
	out.PositionValueData.DataPoints = []apiwire.PositionValuePoint{{CollateralMint: colMint, Date: now,
		CollateralTokenAmount: in.CollateralTokens, CollateralTokenAmountOfDebt: debtUsd / nonZero(price),
		CollateralValueUsd: it.CollateralUsd, NetPositionValueUsd: it.CollateralUsd - debtUsd, PrincipalValueUsd: debtUsd,
		NetPositionValueTokenAmount: (it.CollateralUsd - debtUsd) / nonZero(price)}}
	borrow := 0.0
	if it.PrincipalUsd > 0 {
		borrow = v.apyWeighted / it.PrincipalUsd
	}
	collApy := it.CollateralYieldPct / 100
	out.RateHistoryData.DataPoints = []apiwire.RatePoint{{CollateralMint: colMint, Date: now, BorrowApy: borrow,
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
