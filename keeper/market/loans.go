package market

import "slices"

// LoansQuery is the body of E3 (POST markets/loans/info). Every field is an optional filter: nil slices
// and pointers are omitted from the body. To exclude LP/pool collateral set both ExcludeCollateralMints
// and ExcludeCollateralIdentifiers (see [LoansQuery.ExcludeCollateral]).
type LoansQuery struct {
	LoanAddresses                     []string          `json:"loanAddresses,omitempty"`
	Borrowers                         []string          `json:"borrowers,omitempty"`
	Lenders                           []string          `json:"lenders,omitempty"`
	PrincipalMints                    []string          `json:"principalMints,omitempty"`
	ExcludePrincipalMints             []string          `json:"excludePrincipalMints,omitempty"`
	CollateralMints                   []string          `json:"collateralMints,omitempty"`
	CollateralIdentifiers             []string          `json:"collateralIdentifiers,omitempty"`
	ExcludeCollateralMints            []string          `json:"excludeCollateralMints,omitempty"`
	ExcludeCollateralIdentifiers      []string          `json:"excludeCollateralIdentifiers,omitempty"`
	AssetTypes                        []AssetType       `json:"assetTypes,omitempty"`
	LoopVaultPrincipalCollateralPairs []LoopPair        `json:"loopVaultPrincipalCollateralPairs,omitempty"`
	FilterType                        *FilterType       `json:"filterType,omitempty"`
	OrderFundingTypes                 *OrderFundingType `json:"orderFundingTypes,omitempty"`
	IncludePnl                        bool              `json:"includePnl,omitempty"`
	Page                              *int              `json:"page,omitempty"`
	PageSize                          *int              `json:"pageSize,omitempty"`
	SortSide                          *SortSide         `json:"sortSide,omitempty"`
	SortType                          *SortType         `json:"sortType,omitempty"`
}

// ExcludeCollateral excludes collateral by asset mint and by asset identifier at once, which is what
// excluding LP/pool collateral needs (its identifier is the pool id, not a mint).
func (q *LoansQuery) ExcludeCollateral(ids ...string) {
	q.ExcludeCollateralMints = append(q.ExcludeCollateralMints, ids...)
	q.ExcludeCollateralIdentifiers = append(q.ExcludeCollateralIdentifiers, ids...)
}

// LoopPair is one element of LoansQuery.LoopVaultPrincipalCollateralPairs.
type LoopPair struct {
	CollateralAssetIdentifier string `json:"collateralAssetIdentifier"`
	PrincipalAssetIdentifier  string `json:"principalAssetIdentifier"`
}

// LoansPage is the E3 response. Older service generations answer with a bare array of items or name
// the list loanInfos; decoding accepts all three forms (PageInfo and Aggregate are nil when absent).
type LoansPage struct {
	Aggregate       *Aggregate `json:"aggregate,omitempty"`
	CollateralMints []string   `json:"collateralMints"`
	Items           []LoanItem `json:"items"`
	PageInfo        *PageInfo  `json:"pageInfo,omitempty"`
	PrincipalMints  []string   `json:"principalMints"`
	// SnapshotTs is the timestamp of the one pinned oracle snapshot all USD fields of this page use.
	SnapshotTs float64 `json:"snapshotTs"`
}

// PageInfo is the pagination envelope shared by paginated listings. TotalItems and TotalPages are
// filter-scoped.
type PageInfo struct {
	Page       int `json:"page"`
	PageSize   int `json:"pageSize"`
	TotalItems int `json:"totalItems"`
	TotalPages int `json:"totalPages"`
}

// Aggregate sums the whole filter-matched loan set, not the page. APYs are fractions. Borrower daily
// net carry is DailyCollateralYieldUsd − DailyInterestUsd; lender daily net carry is DailyInterestUsd.
type Aggregate struct {
	Count                    int64   `json:"count"`
	CollateralUsd            float64 `json:"collateralUsd"`
	PrincipalUsd             float64 `json:"principalUsd"`
	InterestAccruedUsd       float64 `json:"interestAccruedUsd"`
	InterestEarnedAllTimeUsd float64 `json:"interestEarnedAllTimeUsd"`
	PendingYieldUsd          float64 `json:"pendingYieldUsd"`
	DailyInterestUsd         float64 `json:"dailyInterestUsd"`
	DailyCollateralYieldUsd  float64 `json:"dailyCollateralYieldUsd"`
	DailyPrincipalYieldUsd   float64 `json:"dailyPrincipalYieldUsd"`
	WAvgApy                  float64 `json:"wAvgApy"`
	WAvgCollateralApy        float64 `json:"wAvgCollateralApy"`
	PnlUsd                   float64 `json:"pnlUsd"`
	TokenUsdPnl              float64 `json:"tokenUsdPnl"`
}

// LoansSnapshot is every loan matching a query, read page by page from page 0.
//
// The USD fields of one page use one pinned oracle snapshot. A walk cannot pin one snapshot across
// pages, so SnapshotTs is the first page's and SnapshotsSeen lists every snapshotTs the pages carried;
// MixedSnapshots reports that there was more than one. A mixed walk is not one observation: the
// client's LoanPages reads it again and refuses one that stays mixed.
type LoansSnapshot struct {
	Items []LoanItem
	// Aggregate, CollateralMints and PrincipalMints are the first page's (they are filter-scoped).
	Aggregate       *Aggregate
	CollateralMints []string
	PrincipalMints  []string
	// SnapshotTs is the first page's snapshotTs.
	SnapshotTs float64
	// SnapshotsSeen lists the distinct snapshotTs values of the pages merged, in the order first met.
	SnapshotsSeen []float64
	// MixedSnapshots reports that some later page carried another snapshotTs.
	MixedSnapshots bool
	// Pages is the number of pages read.
	Pages int
	// TotalItems is the first page's pageInfo.totalItems (len(Items) when the service sent none).
	TotalItems int
	// Duplicates counts items dropped because a loan address was already seen (loans shifting between
	// pages while the walk ran).
	Duplicates int

	// strs holds one copy of each string that many loans share (mints, borrowers, strategies), so
	// that a large walk keeps each once instead of once per loan (see share).
	strs map[string]string
}

// maxShared bounds how many distinct strings a snapshot keeps one copy of: past it, a string not
// met yet is kept as it is, so that strings each loan has its own of (position mints) cannot grow
// the table without bound.
const maxShared = 4096

// AddPage merges one page into the snapshot; seen holds the loan addresses
// merged so far, so a loan that shifted between pages is kept once.
func (s *LoansSnapshot) AddPage(p *LoansPage, seen map[string]bool) {
	if s.Pages == 0 {
		s.Aggregate, s.CollateralMints, s.PrincipalMints = p.Aggregate, p.CollateralMints, p.PrincipalMints
		s.SnapshotTs = p.SnapshotTs
		s.TotalItems = len(p.Items)
		if p.PageInfo != nil {
			s.TotalItems = p.PageInfo.TotalItems
		}
	}
	if !slices.Contains(s.SnapshotsSeen, p.SnapshotTs) {
		s.SnapshotsSeen = append(s.SnapshotsSeen, p.SnapshotTs)
	}
	s.MixedSnapshots = len(s.SnapshotsSeen) > 1
	s.Pages++
	for _, it := range p.Items {
		if addr := it.Loan.Address; addr != "" {
			if seen[addr] {
				s.Duplicates++
				continue
			}
			seen[addr] = true
		}
		s.compact(&it)
		s.Items = append(s.Items, it)
	}
}

// compact makes the strings of it that equal strings the snapshot already holds share their bytes:
// the loan's address and last transaction where its collateral entries and ledgers repeat them, and
// the mints, borrowers, strategies and markets that many loans share. The values do not change.
func (s *LoansSnapshot) compact(it *LoanItem) {
	l := &it.Loan
	l.Borrower = s.share(l.Borrower)
	for i := range it.Collateral {
		c := &it.Collateral[i]
		c.Loan = same(c.Loan, l.Address)
		c.LastInteractedTxn = same(c.LastInteractedTxn, l.LastInteractedTxn)
		c.AssetMint = s.share(c.AssetMint)
		c.AssetIdentifier = same(c.AssetIdentifier, c.AssetMint)
		c.AssetIdentifier = s.share(c.AssetIdentifier)
	}
	for i := range it.Ledgers {
		g := &it.Ledgers[i]
		g.Loan = same(g.Loan, l.Address)
		g.LastInteractedTxn = same(g.LastInteractedTxn, l.LastInteractedTxn)
		g.PrincipalMint = s.share(g.PrincipalMint)
		g.Strategy = s.share(g.Strategy)
		g.MarketInformation = s.share(g.MarketInformation)
	}
	for i := range it.CollateralBreakdown {
		b := &it.CollateralBreakdown[i]
		b.AssetIdentifier = s.share(b.AssetIdentifier)
	}
}

// same returns to when v equals it, else v: equal values, to's bytes.
func same(v, to string) string {
	if v == to {
		return to
	}
	return v
}

// share returns the snapshot's copy of v, keeping v as that copy when it has none and the table is
// not full.
func (s *LoansSnapshot) share(v string) string {
	if v == "" {
		return v
	}
	if w, ok := s.strs[v]; ok {
		return w
	}
	if s.strs == nil {
		s.strs = make(map[string]string)
	}
	if len(s.strs) < maxShared {
		s.strs[v] = v
	}
	return v
}
