package market

import (
	"context"
	"fmt"
)

// MaxPages bounds how many pages a walk reads before it gives up, so that a service that keeps
// reporting more pages cannot hold a run forever.
const MaxPages = 10_000

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

// pageSize returns *size, or DefaultPageSize when nil; a zero size cannot be walked.
func pageSize(ep string, size *int) (int, error) {
	if size == nil {
		return DefaultPageSize, nil
	}
	if *size <= 0 {
		return 0, invalid(ep, fmt.Errorf("pageSize must be positive to walk pages, got %d", *size))
	}
	return *size, nil
}

// AllLoans walks every page of E3 from page 0 (q.Page is ignored; q.PageSize or DefaultPageSize is
// used) until pageInfo.totalPages is reached or a page is empty. A response without pageInfo (an older
// generation) is a single page.
func (c *Client) AllLoans(ctx context.Context, q LoansQuery) (*LoansSnapshot, error) {
	size, err := pageSize(EndpointLoansInfo, q.PageSize)
	if err != nil {
		return nil, err
	}
	snap := &LoansSnapshot{}
	seen := make(map[string]bool)
	for page := 0; ; page++ {
		if page >= MaxPages {
			return nil, fmt.Errorf("market: %s: more than %d pages", EndpointLoansInfo, MaxPages)
		}
		q.Page, q.PageSize = &page, &size
		p, err := c.LoansInfo(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("market: %s: page %d: %w", EndpointLoansInfo, page, err)
		}
		snap.addPage(p, seen)
		if p.PageInfo == nil || len(p.Items) == 0 || page+1 >= p.PageInfo.TotalPages {
			return snap, nil
		}
	}
}

// addPage merges one page into the snapshot.
func (s *LoansSnapshot) addPage(p *LoansPage, seen map[string]bool) {
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
