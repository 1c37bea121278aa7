package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// loanWalks reads the loans policies decide on, in one of two ways. A set
// of at most market.shared_walk_max_loans is read once and shared by the
// policies of a tick (through the read cache). A larger set is read by
// each policy on its own, page by page, and evaluated as it comes
// (pageWalk), so a run's memory does not grow with the number of loans;
// the query is then remembered as large, so the next ticks go straight to
// that.
type loanWalks struct {
	market    Market
	reads     *readCache
	sharedMax int

	mu    sync.Mutex
	large map[string]bool     // loans queries last seen larger than sharedMax
	fans  map[string]*fanWalk // page-by-page walks that others may still join, by loans query
}

// maxPresized bounds the room a whole read makes for the loans page 0
// announces, so that an announcement cannot make it allocate without bound.
const maxPresized = 1 << 18

// errLargeLoanSet reports a loan set larger than the walks the policies of
// a tick share.
var errLargeLoanSet = errors.New("the loan set is larger than market.shared_walk_max_loans")

// observe reads every loan of r's query into obs, sharing the walk with
// the other policies of the tick. Unless whole, it fails with
// errLargeLoanSet, reading no further than page 0, when the set is larger
// than the walks policies share: a policy then reads it page by page. A
// read for people (`keeper wallet`) is whole.
func (w *loanWalks) observe(ctx context.Context, r policies.Reads, obs *policies.Observation, whole bool) error {
	if r.Loans == nil {
		return nil
	}
	q := *r.Loans
	key, _ := json.Marshal(q)
	snap, err := cached(ctx, w.reads, "loans:"+string(key), func(ctx context.Context) (*market.LoansSnapshot, error) {
		return w.shared(ctx, q, string(key), whole)
	})
	if err != nil {
		return err
	}
	obs.Loans = snap.Items
	if t := snapshotTime(snap.SnapshotTs); !t.IsZero() && t.Before(obs.SnapshotTime) {
		obs.SnapshotTime = t
	}
	return nil
}

// shared reads every loan of q into one snapshot. Unless whole, a set
// whose first page announces more than sharedMax loans is not read
// further.
func (w *loanWalks) shared(ctx context.Context, q market.LoansQuery, key string, whole bool) (*market.LoansSnapshot, error) {
	if !whole && w.isLarge(key) {
		return nil, errLargeLoanSet
	}
	var snap *market.LoansSnapshot
	var seen map[string]bool
	cur := 0
	err := w.market.LoanPages(ctx, q, func(walk int, p *market.LoansPage) error {
		if walk != cur {
			snap, seen, cur = &market.LoansSnapshot{}, map[string]bool{}, walk
			if !whole && p.PageInfo != nil && p.PageInfo.TotalItems > w.sharedMax {
				w.setLarge(key, true)
				return errLargeLoanSet
			}
			if p.PageInfo != nil && p.PageInfo.TotalItems > 0 {
				snap.Items = make([]market.LoanItem, 0, min(p.PageInfo.TotalItems, max(w.sharedMax, maxPresized)))
			}
		}
		snap.AddPage(p, seen)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, fmt.Errorf("market: %s: the walk handed over no page", market.EndpointLoansInfo)
	}
	return snap, nil
}

// isLarge reports whether the loans query of key was last seen larger
// than the walks policies share.
func (w *loanWalks) isLarge(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.large[key]
}

// setLarge records whether the loans query of key is larger than the
// walks policies share.
func (w *loanWalks) setLarge(key string, large bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !large {
		delete(w.large, key)
		return
	}
	if w.large == nil {
		w.large = map[string]bool{}
	}
	w.large[key] = true
}

// pages walks the pages of q for visit, sharing the walk with the other
// policies of the tick where it can: a policy that asks for a query whose
// walk another has started, and which has not handed over its first page
// yet, joins it and is handed the same pages instead of reading them
// again. A policy that comes later walks on its own. The walk runs under
// the context of the policy that started it; a policy that joined and
// whose context ends leaves it.
func (w *loanWalks) pages(ctx context.Context, q market.LoansQuery, key string, visit func(int, *market.LoansPage) error) error {
	me := &fanVisitor{visit: visit}
	w.mu.Lock()
	if f := w.fans[key]; f != nil && f.join(me) {
		w.mu.Unlock()
		return f.wait(ctx, me)
	}
	f := &fanWalk{visitors: []*fanVisitor{me}, done: make(chan struct{})}
	if w.fans == nil {
		w.fans = map[string]*fanWalk{}
	}
	w.fans[key] = f
	w.mu.Unlock()
	err := w.market.LoanPages(ctx, q, f.visit)
	w.mu.Lock()
	if w.fans[key] == f {
		delete(w.fans, key)
	}
	w.mu.Unlock()
	f.finish(err)
	return f.wait(ctx, me)
}

// fanWalk is one page-by-page walk and the policies it hands its pages to.
type fanWalk struct {
	mu       sync.Mutex
	started  bool // a page was handed over: no policy joins any more
	visitors []*fanVisitor
	done     chan struct{} // closed when the walk has ended
}

// fanVisitor is one policy's part in a fanWalk: its page handler and how
// its walk ended (nil: every page handed over).
type fanVisitor struct {
	visit func(int, *market.LoansPage) error
	err   error
	gone  bool // it stopped waiting: hand it nothing more
}

// errNoVisitor ends a walk whose every policy has failed or left.
var errNoVisitor = errors.New("no policy takes the pages any more")

// join adds v to the walk unless it has handed over a page already.
func (f *fanWalk) join(v *fanVisitor) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.started {
		return false
	}
	f.visitors = append(f.visitors, v)
	return true
}

// visit hands page p of walk to every policy still taking pages, in the
// order they joined. A policy whose handler fails takes no more pages;
// the walk ends once none takes them.
func (f *fanWalk) visit(walk int, p *market.LoansPage) error {
	f.mu.Lock()
	f.started = true
	vs := slices.Clone(f.visitors)
	f.mu.Unlock()
	live := 0
	for _, v := range vs {
		f.mu.Lock()
		skip := v.err != nil || v.gone
		f.mu.Unlock()
		if skip {
			continue
		}
		if err := v.visit(walk, p); err != nil {
			f.mu.Lock()
			v.err = err
			f.mu.Unlock()
			continue
		}
		live++
	}
	if live == 0 {
		return errNoVisitor
	}
	return nil
}

// finish records how the walk ended for every policy whose own handler
// did not fail, and releases those waiting.
func (f *fanWalk) finish(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range f.visitors {
		if v.err == nil {
			v.err = err
		}
	}
	close(f.done)
}

// wait waits for the walk to end, or for ctx (then v leaves the walk),
// and returns how it ended for v.
func (f *fanWalk) wait(ctx context.Context, v *fanVisitor) error {
	select {
	case <-f.done:
	case <-ctx.Done():
		f.mu.Lock()
		defer f.mu.Unlock()
		v.gone = true
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return v.err
}

// sieving is what a policy's run knows that a page-by-page observation
// needs: the policy's `for` state (read only) and the run's scope (nil:
// every target).
type sieving struct {
	state *policies.State
	scope *policies.Scope
}

// pageWalk is one policy's page-by-page observation of a large loan set:
// each page is read with its CLMM positions, quotes, mints and prices, and
// evaluated at once by a policies.Sieve, which keeps only the loans,
// positions and quotes the evaluation could act on or report.
type pageWalk struct {
	o     *observer
	p     *policies.Policy
	r     policies.Reads
	sieve *policies.Sieve
	base  *policies.Observation

	walk, total int // the walk being read, and the loans its page 0 announced
	unpriced    map[string]string
	quotes      map[string][]market.Quote // the walk's answers, by request
}

// observeSieved observes reads r for policy p page by page (pageWalk). The
// Observation returned carries the sieve's time, at which the run
// evaluates it.
func (o *observer) observeSieved(ctx context.Context, p *policies.Policy, r policies.Reads, sv sieving) (*policies.Observation, error) {
	start := o.now()
	base := &policies.Observation{Wallet: o.wallet.String(), SnapshotTime: start, Tokens: o.tokens()}
	if base.Tokens == nil {
		base.Tokens = map[string]policies.Token{}
	}
	pw := &pageWalk{o: o, p: p, r: r, base: base, sieve: policies.NewSieve(p, base, start, sv.state, sv.scope),
		unpriced: map[string]string{}, quotes: map[string][]market.Quote{}}
	key, err := json.Marshal(*r.Loans)
	if err != nil {
		return nil, fmt.Errorf("reading loans page by page: %w", err)
	}
	if err := o.walks.pages(ctx, *r.Loans, string(key), pw.visit(ctx)); err != nil {
		return nil, fmt.Errorf("reading loans page by page: %w", err)
	}
	if pw.total <= o.walks.sharedMax {
		o.walks.setLarge(string(key), false)
	}
	return pw.sieve.Observation(), nil
}

// visit returns the walk's page handler: it starts over when the pages
// are read again, then reads what the page's loans need and sieves them.
func (pw *pageWalk) visit(ctx context.Context) func(walk int, pg *market.LoansPage) error {
	return func(walk int, pg *market.LoansPage) error {
		if walk != pw.walk {
			pw.sieve.Reset()
			pw.walk, pw.total = walk, len(pg.Items)
			if pg.PageInfo != nil {
				pw.total = pg.PageInfo.TotalItems
			}
		}
		page := &policies.Observation{Wallet: pw.base.Wallet, SnapshotTime: snapshotTime(pg.SnapshotTs),
			Loans: pg.Items, Tokens: pw.base.Tokens, Unpriced: pw.unpriced}
		if err := pw.read(ctx, page); err != nil {
			return err
		}
		pw.sieve.Add(page)
		return nil
	}
}

// read reads what one page's loans need besides themselves: their CLMM
// positions, their quotes, the mints they show and the prices of the
// positions' mints. Pages share the walk's tokens, so a mint is described
// and priced once.
func (pw *pageWalk) read(ctx context.Context, page *policies.Observation) error {
	o, r := pw.o, pw.r
	if r.Positions {
		if err := o.observePositions(ctx, page); err != nil {
			return err
		}
	}
	if r.Quotes {
		if err := o.observeQuotes(ctx, pw.p, page, pw.quotes); err != nil {
			return err
		}
	}
	o.learnTokens(ctx, page)
	if r.PositionValues {
		o.prices.pricePositions(ctx, page)
	}
	return nil
}
