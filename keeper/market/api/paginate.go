package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/keeper-project/keeper/keeper/market"
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

// loans is the client's service for the loans: one page of E3, or every page as one snapshot. A walk
// reads at most inFlight pages ahead and is read again, up to walks times in all, while its pages carry
// different oracle snapshots. A walk whose query sets no page size asks for pages of size items, or
// fewer once the market has refused that many (walkSize).
type loans struct {
	t        *transport
	walks    int
	inFlight int
	size     atomic.Int64 // the page size walks ask for: Options.PageSize, halved after each refusal
	log      *slog.Logger
}

// minFallbackPageSize is the smallest page size a walk falls back to when the market refuses a
// larger one: the size keeper asked for before the page size could be configured.
const minFallbackPageSize = DefaultPageSize

// walkSize returns the page size of a walk of q: q's own, or the one the client has found the
// market to accept; adaptive says whether the walk may try a smaller one when the market refuses it.
func (l *loans) walkSize(q market.LoansQuery) (size int, adaptive bool, err error) {
	if q.PageSize != nil {
		size, err = pageSize(market.EndpointLoansInfo, q.PageSize)
		return size, false, err
	}
	return int(l.size.Load()), true, nil
}

// refused reports whether err is the market refusing a walk's page 0 of size items as a bad request,
// which a smaller page size may cure: the spec shows no maximum page size, and a 400 is how a service
// refuses one it does not take.
func refused(err error, size int) bool {
	ae, ok := errors.AsType[*APIError](err)
	return ok && ae.Status == http.StatusBadRequest && size > minFallbackPageSize
}

// fallBack records that the market refused pages of size items and returns the next size to try.
func (l *loans) fallBack(size int, err error) int {
	next := max(minFallbackPageSize, size/2)
	if l.size.CompareAndSwap(int64(size), int64(next)) {
		l.log.Warn("The market refused a loans page of this size; asking for smaller pages from now on (set market.page_size to it)",
			"endpoint", market.EndpointLoansInfo, "page_size", size, "next_page_size", next, "err", err)
	}
	return next
}

// LoansInfo calls E3 (loans info) for one page.
func (l *loans) LoansInfo(ctx context.Context, q market.LoansQuery) (*market.LoansPage, error) {
	return fetch[market.LoansPage](ctx, l.t, market.EndpointLoansInfo, "", q)
}

// loanWalk is one walk of E3's pages of size items for the query q (see LoanPages). An adaptive walk
// whose page 0 the market refuses as a bad request asks for it again with half as many items, down to
// minFallbackPageSize, and the client's later walks start from the size that was taken.
type loanWalk struct {
	l        *loans
	q        market.LoansQuery
	size     int
	adaptive bool
}

// run reads the walk, handing each page to merge as soon as the pages before it have been, and not
// keeping it: a walk holds at most PagesInFlight pages besides what merge keeps. An error merge returns
// ends the walk and is returned.
func (w loanWalk) run(ctx context.Context, merge func(*market.LoansPage) error) error {
	first, err := w.page(ctx, 0)
	for w.adaptive && refused(err, w.size) {
		w.size = w.l.fallBack(w.size, err)
		first, err = w.page(ctx, 0)
	}
	if err != nil {
		return err
	}
	if err := merge(first); err != nil {
		return err
	}
	if first.PageInfo == nil || len(first.Items) == 0 || first.PageInfo.TotalPages <= 1 {
		return nil
	}
	total := first.PageInfo.TotalPages
	if total > MaxPages {
		return fmt.Errorf("market: %s: more than %d pages", market.EndpointLoansInfo, MaxPages)
	}
	return w.rest(ctx, total, merge)
}

// page reads one page of the walk.
func (w loanWalk) page(ctx context.Context, page int) (*market.LoansPage, error) {
	q, size := w.q, w.size
	q.Page, q.PageSize = &page, &size
	p, err := w.l.LoansInfo(ctx, q)
	if err != nil {
		return nil, &pageError{ep: market.EndpointLoansInfo, page: page, err: err}
	}
	return p, nil
}

// pageError is a failed page of a walk. Its message names the endpoint
// and the page once ("market: loans_info: page 3: dial tcp …"), though
// the read's own error already starts with the endpoint.
type pageError struct {
	ep   string
	page int
	err  error
}

func (e *pageError) Error() string {
	rest := strings.TrimPrefix(e.err.Error(), "market: "+e.ep+": ")
	return fmt.Sprintf("market: %s: page %d: %s", e.ep, e.page, rest)
}

func (e *pageError) Unwrap() error { return e.err }

// rest reads pages 1 to total-1 and hands them to merge in page order, up to and including the
// first empty page; each page is handed over as soon as the pages before it have been, and not kept.
// At most PagesInFlight pages are read ahead of the lowest page not yet answered: page i is requested
// only once page i-PagesInFlight has been answered, so after a failure or an empty page no page
// beyond that window is requested, however slow the failing answer was. The lowest failing page
// before an empty one is the error; pages before it have been merged by then. An error merge returns
// settles the walk the same way: it is the walk's error, and no later page is merged.
func (w loanWalk) rest(ctx context.Context, total int, merge func(*market.LoansPage) error) error {
	n := total - 1
	pages := make([]*market.LoansPage, n)
	errs := make([]error, n)
	done := make([]chan struct{}, n)
	ahead := max(1, w.l.inFlight)
	var stop atomic.Bool
	var wg sync.WaitGroup
	// Pages are settled in order: next is the lowest page not settled yet; once the walk's end (an
	// empty page) or an error is met, settled is set and later pages are dropped unmerged.
	next, settled := 0, false
	var walkErr error
	settle := func() {
		switch {
		case settled:
		case errs[next] != nil:
			walkErr, settled = errs[next], true
		default:
			walkErr = merge(pages[next])
			settled = walkErr != nil || len(pages[next].Items) == 0
		}
		if settled {
			stop.Store(true)
		}
		pages[next] = nil
		next++
	}
	for i := range pages {
		if i >= ahead {
			<-done[i-ahead]
			for next <= i-ahead {
				settle()
			}
		}
		if stop.Load() || ctx.Err() != nil {
			break
		}
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			pages[i], errs[i] = w.page(ctx, i+1)
			if errs[i] != nil || len(pages[i].Items) == 0 {
				stop.Store(true) // an error, or the end: request nothing further
			}
		})
	}
	wg.Wait()
	for next < n && done[next] != nil {
		settle()
	}
	if !settled && next < n { // page next was never requested: an earlier page failed, or ctx ended
		return fmt.Errorf("market: %s: page %d: %w", market.EndpointLoansInfo, next+1, context.Cause(ctx))
	}
	return walkErr
}
