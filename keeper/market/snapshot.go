package market

// LoansSnapshot is every loan matching a query, read page by page from page 0.
//
// The USD fields of one page use one pinned oracle snapshot. A walk cannot pin one snapshot across
// pages, so SnapshotTs is the first page's and MixedSnapshots reports that a later page carried a
// different snapshotTs (the walk does not refuse: each item's USD fields stay consistent with
// themselves; a caller that compares USD values across loans may re-read or skip the run).
type LoansSnapshot struct {
	Items []LoanItem
	// Aggregate, CollateralMints and PrincipalMints are the first page's (they are filter-scoped).
	Aggregate       *Aggregate
	CollateralMints []string
	PrincipalMints  []string
	// SnapshotTs is the first page's snapshotTs.
	SnapshotTs float64
	// MixedSnapshots reports that some later page carried another snapshotTs.
	MixedSnapshots bool
	// Pages is the number of pages read.
	Pages int
	// TotalItems is the first page's pageInfo.totalItems (len(Items) when the service sent none).
	TotalItems int
	// Duplicates counts items dropped because a loan address was already seen (loans shifting between
	// pages while the walk ran).
	Duplicates int
}

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
	} else if p.SnapshotTs != s.SnapshotTs {
		s.MixedSnapshots = true
	}
	s.Pages++
	for _, it := range p.Items {
		if addr := it.Loan.Address; addr != "" {
			if seen[addr] {
				s.Duplicates++
				continue
			}
			seen[addr] = true
		}
		s.Items = append(s.Items, it)
	}
}
