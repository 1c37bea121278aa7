package api

import (
	"context"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
	"sync"
	"sync/atomic"
)

// MaxPages bounds how many pages a walk reads before it gives up, so that a service that keeps
// reporting more pages cannot hold a run forever.
const MaxPages = 10_000

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
// generation) is a single page. After the first page has said how many there are, the rest are
// requested Options.PagesInFlight at a time and merged in page order, as a strictly sequential walk
// would: the walk still ends at the first empty page, and an error names the lowest failing page.
//
// Each page pins its own oracle snapshot. A walk whose pages carry different snapshotTs values is
// read again from page 0, up to Options.SnapshotWalks walks in all; when the last is still mixed the
// result is a *MixedSnapshotsError (errors.Is ErrMixedSnapshots) and no snapshot.
func (c *Client) AllLoans(ctx context.Context, q market.LoansQuery) (*market.LoansSnapshot, error) {
	size, err := pageSize(market.EndpointLoansInfo, q.PageSize)
	if err != nil {
		return nil, err
	}
	walks := c.opts.SnapshotWalks
	for walk := 1; ; walk++ {
		snap, err := c.walkLoans(ctx, q, size)
		if err != nil {
			return nil, err
		}
		err = mixedSnapshots(market.EndpointLoansInfo, walk, snap)
		if err == nil {
			return snap, nil
		}
		if walk >= walks {
			return nil, err
		}
		c.opts.Logger.Warn("Pages of a walk carry different oracle snapshots; reading it again",
			"endpoint", market.EndpointLoansInfo, "walk", walk, "of", walks, "err", err)
	}
}

// walkLoans reads one walk of E3 pages of size items (see AllLoans).
func (c *Client) walkLoans(ctx context.Context, q market.LoansQuery, size int) (*market.LoansSnapshot, error) {
	first, err := c.loansPage(ctx, q, 0, size)
	if err != nil {
		return nil, err
	}
	snap := &market.LoansSnapshot{}
	seen := make(map[string]bool)
	snap.AddPage(first, seen)
	if first.PageInfo == nil || len(first.Items) == 0 || first.PageInfo.TotalPages <= 1 {
		return snap, nil
	}
	total := first.PageInfo.TotalPages
	if total > MaxPages {
		return nil, fmt.Errorf("market: %s: more than %d pages", market.EndpointLoansInfo, MaxPages)
	}
	pages, err := c.loansPages(ctx, q, size, total)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		snap.AddPage(p, seen)
		if len(p.Items) == 0 {
			break
		}
	}
	return snap, nil
}

// loansPage reads one page of E3.
func (c *Client) loansPage(ctx context.Context, q market.LoansQuery, page, size int) (*market.LoansPage, error) {
	q.Page, q.PageSize = &page, &size
	p, err := c.LoansInfo(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("market: %s: page %d: %w", market.EndpointLoansInfo, page, err)
	}
	return p, nil
}

// loansPages reads pages 1 to total-1 and returns them in page order, stopping at the first empty
// page. At most PagesInFlight pages are read ahead of the lowest page not yet answered: page i is
// requested only once page i-PagesInFlight has been answered, so after a failure or an empty page no
// page beyond that window is requested, however slow the failing answer was. The lowest failing page
// before an empty one is the error.
func (c *Client) loansPages(ctx context.Context, q market.LoansQuery, size, total int) ([]*market.LoansPage, error) {
	n := total - 1
	pages := make([]*market.LoansPage, n)
	errs := make([]error, n)
	done := make([]chan struct{}, n)
	ahead := max(1, c.opts.PagesInFlight)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range pages {
		if i >= ahead {
			<-done[i-ahead]
		}
		if stop.Load() || ctx.Err() != nil {
			break
		}
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			pages[i], errs[i] = c.loansPage(ctx, q, i+1, size)
			if errs[i] != nil || len(pages[i].Items) == 0 {
				stop.Store(true) // an error, or the end: request nothing further
			}
		})
	}
	wg.Wait()
	return inOrder(pages, errs, ctx)
}

// inOrder returns the pages up to and including the first empty one, or
// the first error met before it.
func inOrder(pages []*market.LoansPage, errs []error, ctx context.Context) ([]*market.LoansPage, error) {
	for i, p := range pages {
		switch {
		case errs[i] != nil:
			return nil, errs[i]
		case p == nil: // never requested: an earlier page failed, or ctx ended
			return nil, fmt.Errorf("market: %s: page %d: %w", market.EndpointLoansInfo, i+1, context.Cause(ctx))
		case len(p.Items) == 0:
			return pages[:i+1], nil
		}
	}
	return pages, nil
}
