package sim

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// loanNames maps the addresses of items back to scenario names.
func (e *env) loanNames(t *testing.T, items []market.LoanItem) []string {
	t.Helper()
	var out []string
	for _, it := range items {
		for _, l := range e.sim.w.Loans {
			if l.Address.String() == it.Loan.Address {
				out = append(out, l.Name)
			}
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestLoansInfoFilters(t *testing.T) {
	e := newEnv(t, Options{})
	a := func(kind, name string) string { return e.addr(t, kind, name).String() }
	wallet := testWallet().String()
	all := []string{"repay-me", "rebalance-me", "claim-me", "repay-sol", "alice-sol", "bob-loop", "alice-closed", "bob-liquidated"}
	poolA, poolB := a(ids.KindPool, "sol-usdc-a"), a(ids.KindPool, "sol-usdc-b")
	tests := []struct {
		name string
		q    market.LoansQuery
		want []string
	}{
		{"no filter", market.LoansQuery{}, all},
		{"loan address", market.LoansQuery{LoanAddresses: []string{a(ids.KindLoan, "claim-me")}}, []string{"claim-me"}},
		{"borrower wallet", market.LoansQuery{Borrowers: []string{wallet}}, []string{"repay-me", "rebalance-me", "claim-me", "repay-sol"}},
		{"borrower alice", market.LoansQuery{Borrowers: []string{a(ids.KindWallet, "alice")}}, []string{"alice-sol", "alice-closed"}},
		{"lender by authority", market.LoansQuery{Lenders: []string{wallet}}, []string{"alice-sol"}},
		{"lender by strategy", market.LoansQuery{Lenders: []string{a(ids.KindStrategy, "gamma")}}, []string{"bob-loop", "repay-sol"}},
		{"principal mint", market.LoansQuery{PrincipalMints: []string{a(ids.KindMint, "SOL")}}, []string{"bob-loop", "repay-sol"}},
		{"exclude principal mint", market.LoansQuery{ExcludePrincipalMints: []string{a(ids.KindMint, "USDC")}}, []string{"bob-loop", "repay-sol"}},
		{"collateral mint", market.LoansQuery{CollateralMints: []string{a(ids.KindMint, "SOL")}}, []string{"repay-me", "alice-sol", "alice-closed", "bob-liquidated"}},
		{"collateral mint of a position", market.LoansQuery{CollateralMints: []string{a(ids.KindPosition, "pos-a")}}, []string{"rebalance-me"}},
		{"collateral identifier", market.LoansQuery{CollateralIdentifiers: []string{poolB}}, []string{"claim-me"}},
		{"exclude by mint", market.LoansQuery{ExcludeCollateralMints: []string{a(ids.KindMint, "SOL")}}, []string{"rebalance-me", "claim-me", "bob-loop", "repay-sol"}},
		{"exclude pool by mint misses it", market.LoansQuery{ExcludeCollateralMints: []string{poolA}}, all},
		{"exclude pool by identifier", market.LoansQuery{ExcludeCollateralIdentifiers: []string{poolA}},
			[]string{"repay-me", "claim-me", "repay-sol", "alice-sol", "bob-loop", "alice-closed", "bob-liquidated"}},
		{"exclude LP both ways", func() market.LoansQuery { var q market.LoansQuery; q.ExcludeCollateral(poolA, poolB); return q }(),
			[]string{"repay-me", "repay-sol", "alice-sol", "bob-loop", "alice-closed", "bob-liquidated"}},
		{"asset types", market.LoansQuery{AssetTypes: []market.AssetType{1, 2}}, []string{"rebalance-me", "claim-me"}},
		{"active", market.LoansQuery{FilterType: ptr(market.FilterType(0))},
			[]string{"repay-me", "rebalance-me", "claim-me", "repay-sol", "alice-sol", "bob-loop", "bob-liquidated"}},
		{"closed", market.LoansQuery{FilterType: ptr(market.FilterType(1))}, []string{"alice-closed"}},
		{"all", market.LoansQuery{FilterType: ptr(market.FilterType(2))}, all},
		{"funding type 3", market.LoansQuery{OrderFundingTypes: ptr(market.OrderFundingType(3))}, nil},
		{"loop pair", market.LoansQuery{LoopVaultPrincipalCollateralPairs: []market.LoopPair{
			{CollateralAssetIdentifier: a(ids.KindMint, "JITOSOL"), PrincipalAssetIdentifier: a(ids.KindMint, "SOL")}}}, []string{"bob-loop"}},
		{"loop pair without loop ledger", market.LoansQuery{LoopVaultPrincipalCollateralPairs: []market.LoopPair{
			{CollateralAssetIdentifier: a(ids.KindMint, "SOL"), PrincipalAssetIdentifier: a(ids.KindMint, "USDC")}}}, nil},
		{"combined", market.LoansQuery{Borrowers: []string{wallet}, CollateralMints: []string{a(ids.KindMint, "SOL")}}, []string{"repay-me"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.PageSize = ptr(100)
			page, err := e.market.LoansInfo(e.ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := e.loanNames(t, page.Items)
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("loans %v, want %v", got, tc.want)
			}
			if page.PageInfo.TotalItems != len(tc.want) || page.Aggregate.Count != int64(len(tc.want)) {
				t.Errorf("totalItems %d, aggregate count %d, want %d", page.PageInfo.TotalItems, page.Aggregate.Count, len(tc.want))
			}
		})
	}
}

func TestLoansInfoPagingAndSort(t *testing.T) {
	e := newEnv(t, Options{})
	wallet := testWallet().String()
	page, err := e.market.LoansInfo(e.ctx, market.LoansQuery{Borrowers: []string{wallet}, Page: ptr(1), PageSize: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.loanNames(t, page.Items); !slices.Equal(got, []string{"repay-sol", "claim-me"}) {
		t.Errorf("page 1 of 2 = %v, want [repay-sol claim-me]", got)
	}
	want := market.PageInfo{Page: 1, PageSize: 2, TotalItems: 4, TotalPages: 2}
	if *page.PageInfo != want {
		t.Errorf("pageInfo %+v, want %+v", *page.PageInfo, want)
	}
	if page.Aggregate.Count != 4 {
		t.Errorf("aggregate count %d, want the filter's 4", page.Aggregate.Count)
	}
	sorted, err := e.market.LoansInfo(e.ctx, market.LoansQuery{SortType: ptr(market.SortType(1)), SortSide: ptr(market.SortDescending)})
	if err != nil {
		t.Fatal(err)
	}
	byStart, _ := e.market.LoansInfo(e.ctx, market.LoansQuery{})
	wantStart := []string{"bob-liquidated", "alice-closed", "repay-me", "bob-loop", "rebalance-me", "repay-sol", "claim-me", "alice-sol"}
	if got := e.loanNames(t, byStart.Items); !slices.Equal(got, wantStart) {
		t.Errorf("default order %v, want by start time %v", got, wantStart)
	}
	if !slices.IsSortedFunc(sorted.Items, func(a, b market.LoanItem) int { return int(math.Copysign(1, b.CollateralUsd-a.CollateralUsd)) }) {
		t.Errorf("items not sorted by collateralUsd descending")
	}
	snap, err := e.allLoans(market.LoansQuery{PageSize: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Items) != 8 || snap.Pages != 4 || snap.MixedSnapshots || snap.SnapshotTs != float64(testStart.Unix()) {
		t.Errorf("walk: %d items, %d pages, mixed %v, snapshotTs %v", len(snap.Items), snap.Pages, snap.MixedSnapshots, snap.SnapshotTs)
	}
}

func TestLoansInfoAggregateAndPnl(t *testing.T) {
	e := newEnv(t, Options{})
	e.advance(t, 10*time.Second)
	page, err := e.market.LoansInfo(e.ctx, market.LoansQuery{Borrowers: []string{testWallet().String()}, IncludePnl: true})
	if err != nil {
		t.Fatal(err)
	}
	var sumColl, sumPnl float64
	for _, it := range page.Items {
		sumColl += it.CollateralUsd
		sumPnl += it.PnlUsd
		if it.Pnl == nil || it.Pnl.UsdPnl != it.PnlUsd {
			t.Errorf("loan %s: pnl details %+v", it.Loan.Address, it.Pnl)
		}
	}
	agg := page.Aggregate
	if !near(agg.CollateralUsd, sumColl) || !near(agg.PnlUsd, sumPnl) || agg.InterestEarnedAllTimeUsd != 0 {
		t.Errorf("aggregate %+v does not sum the items (collateral %v, pnl %v)", agg, sumColl, sumPnl)
	}
	repay := page.Items[0]
	// 10 SOL at 110 USD; 800 USDC borrowed against 1500 USD of SOL; the borrower's net inflow is 700 USD.
	want := 1100 - 800 - repay.InterestAccruedUsd - 700
	if !near(repay.CollateralUsd, 1100) || !near(repay.PnlUsd, want) {
		t.Errorf("repay-me: collateralUsd %v pnlUsd %v, want 1100 and %v", repay.CollateralUsd, repay.PnlUsd, want)
	}
	// Interest: 800 USDC × 9.5 % × (10 days + 10 s) / SECONDS_PER_YEAR, rounded down to base units.
	if want := math.Floor(800e6*0.095*(864_000+10)/31_536_000) / 1e6; !near(repay.InterestAccruedUsd, want) {
		t.Errorf("interestAccruedUsd %v, want %v", repay.InterestAccruedUsd, want)
	}
	// Principal-weighted in USD: 800 at 9.5 %, 2000 and 1000 at 9 %, 9 SOL (990 USD at 110) at 6 %.
	if want := (800*0.095 + 3000*0.09 + 990*0.06) / 4790; !near(agg.WAvgApy, want) {
		t.Errorf("wAvgApy %v, want %v", agg.WAvgApy, want)
	}
	plain, _ := e.market.LoansInfo(e.ctx, market.LoansQuery{Borrowers: []string{testWallet().String()}})
	if plain.Items[0].Pnl != nil {
		t.Errorf("pnl details without includePnl")
	}
}

func TestLoansInfoRejects(t *testing.T) {
	e := newEnv(t, Options{})
	tests := []struct {
		name string
		q    market.LoansQuery
		want string
	}{
		{"sort type", market.LoansQuery{SortType: ptr(market.SortType(9))}, "sortType 9 is not supported"},
		{"sort side", market.LoansQuery{SortSide: ptr(market.SortSide(2))}, "sortSide 2 is not supported"},
		{"filter type", market.LoansQuery{FilterType: ptr(market.FilterType(7))}, "filterType 7 is not supported"},
		{"address", market.LoansQuery{Borrowers: []string{"not-a-key"}}, `borrowers[0]: "not-a-key" is not a base58 address`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.market.LoansInfo(e.ctx, tc.q)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "400") {
				t.Errorf("error %v, want 400 %q", err, tc.want)
			}
		})
	}
}

// near reports whether two floats agree to 1e-9 relative.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
