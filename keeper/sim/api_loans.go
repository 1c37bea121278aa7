package sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// Loans-info filterType values of the simulator.
const (
	filterActive = 0
	filterClosed = 1
	filterAll    = 2
)

// loanSortKeys are the simulator's sortType values: 0 start time, 1 collateralUsd, 2 principalUsd,
// 3 interestAccruedUsd, 4 pnlUsd. Ties are broken by loan id.
var loanSortKeys = []func(v *loanView) float64{
	func(v *loanView) float64 { return float64(v.st.StartTime) },
	func(v *loanView) float64 { return v.item.CollateralUsd },
	func(v *loanView) float64 { return v.item.PrincipalUsd },
	func(v *loanView) float64 { return v.item.InterestAccruedUsd },
	func(v *loanView) float64 { return v.item.PnlUsd },
}

// loansInfo serves E3: the filter-matched loans, one page of them, and the aggregate over all of
// them, with every USD figure from one pinned price snapshot.
func (a *loansAPI) loansInfo(c *call, q apiwire.LoansQuery) (any, error) {
	if err := validateLoansQuery(q); err != nil {
		return nil, err
	}
	prices := a.w.Prices.Load()
	sn := &programs.Snapshot{W: a.w, Prices: *prices, At: a.clock.Now()}
	l, err := a.views.listing(q, sn, prices)
	if err != nil {
		return nil, err
	}
	page, size := apiwire.Paging(q.Page, q.PageSize)
	out := apiwire.LoansPage{Aggregate: l.aggregate, CollateralMints: slices.Clone(l.collateralMints),
		PrincipalMints: slices.Clone(l.principalMints), Items: []apiwire.LoanItem{}, PageInfo: apiwire.NewPageInfo(page, size, len(l.views)),
		SnapshotTs: float64(a.snapshotAt(sn.At).Unix()) + a.faults.SnapshotSkew(page)}
	for _, v := range apiwire.PageOf(l.views, page, size) {
		item := v.item
		if q.IncludePnl {
			item.Pnl = a.views.pnl(v, sn)
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// validateLoansQuery checks the enum and address members.
func validateLoansQuery(q apiwire.LoansQuery) error {
	lists := []struct {
		name string
		vals []string
	}{{"loanAddresses", q.LoanAddresses}, {"borrowers", q.Borrowers}, {"lenders", q.Lenders},
		{"principalMints", q.PrincipalMints}, {"excludePrincipalMints", q.ExcludePrincipalMints},
		{"collateralMints", q.CollateralMints}, {"collateralIdentifiers", q.CollateralIdentifiers},
		{"excludeCollateralMints", q.ExcludeCollateralMints}, {"excludeCollateralIdentifiers", q.ExcludeCollateralIdentifiers}}
	for _, l := range lists {
		if err := validateAddresses(l.name, l.vals); err != nil {
			return err
		}
	}
	for i, pr := range q.LoopVaultPrincipalCollateralPairs {
		if pr.CollateralAssetIdentifier == "" || pr.PrincipalAssetIdentifier == "" {
			return apiwire.BadRequest("loopVaultPrincipalCollateralPairs[%d]: collateralAssetIdentifier and principalAssetIdentifier are required", i)
		}
	}
	switch {
	case q.FilterType != nil && *q.FilterType > filterAll:
		return apiwire.BadRequest("filterType %d is not supported (0 active, 1 closed, 2 all)", *q.FilterType)
	case q.SortType != nil && int(*q.SortType) >= len(loanSortKeys):
		return apiwire.BadRequest("sortType %d is not supported (0 start time, 1 collateralUsd, 2 principalUsd, 3 interestAccruedUsd, 4 pnlUsd)", *q.SortType)
	case q.SortSide != nil && *q.SortSide > apiwire.SortDescending:
		return apiwire.BadRequest("sortSide %d is not supported (0 ascending, 1 descending)", *q.SortSide)
	}
	return nil
}

// validateAddresses checks that every value of a list is a base58 address.
func validateAddresses(name string, vals []string) error {
	for i, v := range vals {
		if _, err := solana.PublicKeyFromBase58(v); err != nil {
			return apiwire.BadRequest("%s[%d]: %q is not a base58 address", name, i, v)
		}
	}
	return nil
}

// matchLoan applies every filter of q.
func matchLoan(q apiwire.LoansQuery, v *loanView) bool {
	st := v.st
	colMints, colIDs, types, prinMints := []string{}, []string{}, []apiwire.AssetType{}, []string{}
	for _, col := range st.Collateral {
		colMints, colIDs = append(colMints, col.AssetMint), append(colIDs, col.AssetIdentifier)
		types = append(types, apiwire.AssetType(col.AssetType))
	}
	for _, l := range st.Ledgers {
		prinMints = append(prinMints, l.PrincipalMint)
	}
	ft := filterAll
	if q.FilterType != nil {
		ft = int(*q.FilterType)
	}
	return (ft == filterAll || (ft == filterActive) == !st.Closed) &&
		apiwire.InOrEmpty(q.LoanAddresses, v.addr) && apiwire.InOrEmpty(q.Borrowers, st.Borrower) &&
		(len(q.Lenders) == 0 || apiwire.AnyIn(q.Lenders, apiwire.Keys(v.lenders))) &&
		(len(q.PrincipalMints) == 0 || apiwire.AnyIn(q.PrincipalMints, prinMints)) && !apiwire.AnyIn(q.ExcludePrincipalMints, prinMints) &&
		(len(q.CollateralMints) == 0 || apiwire.AnyIn(q.CollateralMints, colMints)) && !apiwire.AnyIn(q.ExcludeCollateralMints, colMints) &&
		(len(q.CollateralIdentifiers) == 0 || apiwire.AnyIn(q.CollateralIdentifiers, colIDs)) &&
		!apiwire.AnyIn(q.ExcludeCollateralIdentifiers, colIDs) &&
		(len(q.AssetTypes) == 0 || apiwire.AnyIn(q.AssetTypes, types)) &&
		(q.OrderFundingTypes == nil || int32(*q.OrderFundingTypes) == st.FundingType) &&
		matchLoopPairs(q.LoopVaultPrincipalCollateralPairs, st)
}

// matchLoopPairs reports whether a loop ledger of the loan matches one of the pairs (principal mint
// and collateral identifier); no pairs match everything.
func matchLoopPairs(pairs []apiwire.LoopPair, st *state.Loan) bool {
	if len(pairs) == 0 {
		return true
	}
	for _, pr := range pairs {
		for _, l := range st.Ledgers {
			if l.IsLoop == 0 || l.PrincipalMint != pr.PrincipalAssetIdentifier {
				continue
			}
			for _, col := range st.Collateral {
				if col.AssetIdentifier == pr.CollateralAssetIdentifier {
					return true
				}
			}
		}
	}
	return false
}

// sortLoans orders loans by sortType and sortSide, ties by loan id ascending.
func sortLoans(views []*loanView, q apiwire.LoansQuery) {
	key := loanSortKeys[0]
	if q.SortType != nil {
		key = loanSortKeys[*q.SortType]
	}
	desc := q.SortSide != nil && *q.SortSide == apiwire.SortDescending
	slices.SortStableFunc(views, func(a, b *loanView) int {
		c := cmp.Compare(key(a), key(b))
		if desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.st.ID, b.st.ID)
		}
		return c
	})
}

// aggregate sums the whole matched set (spec aggregate rules 1–4).
func aggregate(views []*loanView) *apiwire.Aggregate {
	a := &apiwire.Aggregate{Count: int64(len(views))}
	var apyW, yieldW float64
	for _, v := range views {
		it := v.item
		a.CollateralUsd += it.CollateralUsd
		a.PrincipalUsd += it.PrincipalUsd
		a.InterestAccruedUsd += it.InterestAccruedUsd
		a.PendingYieldUsd += it.PendingYieldUsd
		a.DailyInterestUsd += v.dailyInterestUsd
		a.DailyCollateralYieldUsd += v.dailyCollYieldUsd
		a.DailyPrincipalYieldUsd += v.dailyPrinYieldUsd
		a.PnlUsd += it.PnlUsd
		a.TokenUsdPnl += v.tokenUsdPnl
		apyW += v.apyWeighted
		yieldW += v.collYieldWeighted
	}
	if a.PrincipalUsd > 0 {
		a.WAvgApy = apyW / a.PrincipalUsd
	}
	if a.CollateralUsd > 0 {
		a.WAvgCollateralApy = yieldW / a.CollateralUsd
	}
	return a
}

// SnapshotRefresh is how often the simulated market pins a new oracle snapshot for E3's USD figures.
const SnapshotRefresh = 10 * time.Second

// snapshotAt is the time of the oracle snapshot a loans-info answer served at now uses, its snapshotTs:
// the market pins a snapshot every SnapshotRefresh from the simulator's start, and a new one whenever
// an event moves a price, so that no two answers with one snapshotTs value loans at different prices.
// (The spec says only that one pinned snapshot serves a request, and gives its timestamp; the refresh
// period is the simulator's assumption, docs/assumptions.md S-24.)
func (a *loansAPI) snapshotAt(now time.Time) time.Time {
	at := a.start.Add(now.Sub(a.start).Truncate(SnapshotRefresh))
	if changed := a.w.PricesAt.Load(); changed != 0 && changed > at.UnixNano() {
		at = time.Unix(0, changed)
	}
	return at
}
