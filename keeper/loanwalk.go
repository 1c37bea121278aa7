package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// loanWalks is keeper's one way of reading loans: every read of E3, a
// policy's or a person's (`keeper wallet`), is a reader of a walk of the
// pages, and the readers that come together share one walk. A reader asks
// (read); the first reader of a batch opens it, and the batch takes readers
// for gatherWindow, so that the policies whose schedules fire together
// (each run starts in its own goroutine, microseconds apart) all join it.
// Then the batch's readers are grouped by what they select (mergeKey), and
// each group is fed from one walk of the union of its queries: each page is
// decoded once, its CLMM positions, quotes, mints and prices are read once,
// and every reader of the group is handed it. A policy's reader sieves the
// page (policies.Sieve), keeping only what it could act on or report, so
// that a walk holds at most the pages in flight besides what the sieves
// keep, whatever the number of loans or policies. A reader that comes after
// its batch closed waits for the next batch.
type loanWalks struct {
	market Market
	o      *observer     // reads what a page's loans need besides themselves
	gather time.Duration // how long a batch takes readers before its walks start
	// rps is the configured limit on requests to the market per second
	// (0: none), for the overrun report.
	rps float64

	mu   sync.Mutex
	open *walkBatch      // the batch taking readers; nil when none
	slow map[string]bool // groups whose last walk was reported as unable to finish before the next tick
}

// gatherWindow is how long a batch of readers stays open after its first
// reader: long enough for the runs a cron tick starts at once to join,
// short against a tick (a second at the shortest).
const gatherWindow = 20 * time.Millisecond

// walkBatch is the readers that share the walks of one gathering.
type walkBatch struct {
	readers []*loanReader
}

// loanReader is one read of loans: a policy's sieve (sieve set) or a
// person's whole read (snap set), with what its pages must carry.
type loanReader struct {
	ctx   context.Context
	query market.LoansQuery
	needs pageNeeds
	// due is when the reader's policy should run next (zero: no next run):
	// a walk that cannot end by then says so.
	due time.Time

	sieve  func(now time.Time) *policies.Sieve // makes the policy's sieve when the walk starts; nil for a whole read
	active *policies.Sieve
	snap   *market.LoansSnapshot // a whole read's loans
	seen   map[string]bool

	// Guarded by the walk's lock while it runs.
	err  error
	gone bool // its context ended: hand it nothing more
	done chan struct{}
}

// pageNeeds is what a reader needs read with each page besides its loans.
type pageNeeds struct {
	Positions, Quotes, PositionValues, LoanValues bool
}

// pageNeedsOf is what reads r need read with each page.
func pageNeedsOf(r policies.Reads) pageNeeds {
	return pageNeeds{Positions: r.Positions, Quotes: r.Quotes, PositionValues: r.PositionValues, LoanValues: r.LoanValues}
}

// read feeds rd from a walk shared with the readers that come with it,
// and returns when the walk has handed rd every page (nil), failed for
// it, or rd's context ended.
func (w *loanWalks) read(ctx context.Context, rd *loanReader) error {
	rd.ctx, rd.done = ctx, make(chan struct{})
	w.mu.Lock()
	if w.open == nil {
		b := &walkBatch{}
		w.open = b
		time.AfterFunc(w.gather, func() { w.start(b) })
	}
	w.open.readers = append(w.open.readers, rd)
	w.mu.Unlock()
	select {
	case <-rd.done:
		return rd.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// whole reads every loan of q, for people (`keeper wallet`, reports).
func (w *loanWalks) whole(ctx context.Context, q market.LoansQuery) (*market.LoansSnapshot, error) {
	rd := &loanReader{query: q}
	if err := w.read(ctx, rd); err != nil {
		return nil, err
	}
	if rd.snap == nil {
		return nil, fmt.Errorf("market: %s: the walk handed over no page", market.EndpointLoansInfo)
	}
	return rd.snap, nil
}

// start closes batch b to new readers and walks for each group of them.
func (w *loanWalks) start(b *walkBatch) {
	w.mu.Lock()
	if w.open == b {
		w.open = nil
	}
	groups := map[string][]*loanReader{}
	var order []string
	for _, rd := range b.readers {
		k := mergeKey(rd.query)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], rd)
	}
	w.mu.Unlock()
	for _, k := range order {
		go w.walk(k, groups[k])
	}
}

// mergeKey names the group of readers a query's walk can feed: queries
// that differ only in their borrowers are read as one walk of the union of
// their borrowers (a policy's evaluation applies its own selection again,
// so reading more than it asked is harmless); a query by loan addresses
// walks with its equals only.
func mergeKey(q market.LoansQuery) string {
	if len(q.LoanAddresses) == 0 {
		q.Borrowers = nil
	}
	key, _ := json.Marshal(q)
	return string(key)
}

// unionQuery is the query whose walk feeds every reader of a group: their
// borrowers together, or every borrower when one of them asks for every
// borrower.
func unionQuery(rs []*loanReader) market.LoansQuery {
	q := rs[0].query
	var borrowers []string
	for _, rd := range rs {
		if len(rd.query.Borrowers) == 0 {
			q.Borrowers = nil
			return q
		}
		borrowers = append(borrowers, rd.query.Borrowers...)
	}
	slices.Sort(borrowers)
	q.Borrowers = slices.Compact(borrowers)
	return q
}

// walk reads the pages of the group's query once for all its readers.
// It runs under its own context, which ends when every reader has gone.
func (w *loanWalks) walk(key string, rs []*loanReader) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tw := &tickWalk{w: w, key: key, readers: rs, start: w.o.now(), memo: map[string][]market.Quote{},
		tokens: w.o.tokens(), unpriced: map[string]string{}}
	if tw.tokens == nil {
		tw.tokens = map[string]policies.Token{}
	}
	for _, rd := range rs {
		stop := context.AfterFunc(rd.ctx, func() {
			if tw.leave(rd) {
				cancel()
			}
		})
		defer stop()
	}
	tw.finish(tw.run(ctx, unionQuery(rs)))
}

// run walks the pages of q, turning a panic while reading them into the
// walk's error, as a run's panic is its error (scheduler.runOnce).
func (tw *tickWalk) run(ctx context.Context, q market.LoansQuery) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading a page of loans panicked: %v", r)
			tw.w.o.logger.Error("Reading a page of loans panicked", "err", err, "stack", string(debug.Stack()))
		}
	}()
	return tw.w.market.LoanPages(ctx, q, tw.visit(ctx))
}

// tickWalk is one walk of pages and the readers it feeds.
type tickWalk struct {
	w       *loanWalks
	key     string
	readers []*loanReader
	start   time.Time

	mu       sync.Mutex // guards the readers' err and gone
	walk     int        // the walk number being read (api LoanPages reads again on mixed snapshots)
	pages    int        // pages of this walk handed over
	total    int        // the pages page 0 announced
	size     int        // the page size the market answered with
	reported bool       // the overrun was reported during this walk

	memo     map[string][]market.Quote // quote answers, by request, across the walk
	best     map[string]policies.QuoteObservation
	tokens   map[string]policies.Token
	unpriced map[string]string
}

// errNoReader ends a walk whose every reader has failed or left.
var errNoReader = errors.New("no reader takes the pages any more")

// leave marks rd gone and reports whether no reader is left.
func (tw *tickWalk) leave(rd *loanReader) (none bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	rd.gone = true
	return len(tw.live()) == 0
}

// live returns the readers still taking pages; tw.mu must be held.
func (tw *tickWalk) live() []*loanReader {
	var out []*loanReader
	for _, rd := range tw.readers {
		if rd.err == nil && !rd.gone {
			out = append(out, rd)
		}
	}
	return out
}

// fail ends rd's read with err unless it has ended already.
func (tw *tickWalk) fail(rd *loanReader, err error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if rd.err == nil {
		rd.err = err
	}
}

// visit returns the walk's page handler: it starts the readers over when
// the pages are read again, reads what the page's loans need once for all
// readers, and hands every live reader its view of the page.
func (tw *tickWalk) visit(ctx context.Context) func(int, *market.LoansPage) error {
	return func(walk int, pg *market.LoansPage) error {
		tw.mu.Lock()
		live := tw.live()
		tw.mu.Unlock()
		if len(live) == 0 {
			return errNoReader
		}
		if walk != tw.walk {
			tw.restart(walk, pg, live)
		}
		tw.pages++
		page := &policies.Observation{Wallet: tw.w.o.wallet.String(), SnapshotTime: snapshotTime(pg.SnapshotTs),
			Loans: pg.Items, Tokens: tw.tokens, Unpriced: tw.unpriced}
		live = tw.enrich(ctx, page, live)
		views := map[pageNeeds]*policies.Observation{}
		for _, rd := range live {
			v := views[rd.needs]
			if v == nil {
				v = tw.view(page, rd.needs)
				views[rd.needs] = v
			}
			tw.hand(rd, pg, v)
		}
		tw.checkPace(false)
		return nil
	}
}

// hand hands rd the page. A reader that panics (a policy's evaluation
// gone wrong) fails alone, as its run would have: the walk goes on for the
// others.
func (tw *tickWalk) hand(rd *loanReader, pg *market.LoansPage, v *policies.Observation) {
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("evaluating a page of loans panicked: %v", r)
			tw.w.o.logger.Error("A policy's evaluation of a page panicked", "err", err, "stack", string(debug.Stack()))
			tw.fail(rd, err)
		}
	}()
	rd.add(pg, v)
}

// restart begins walk number walk at its page 0: every reader drops what
// it kept of an earlier walk.
func (tw *tickWalk) restart(walk int, pg *market.LoansPage, live []*loanReader) {
	tw.walk, tw.pages, tw.best = walk, 0, map[string]policies.QuoteObservation{}
	tw.total, tw.size = 1, len(pg.Items)
	if pg.PageInfo != nil {
		tw.total, tw.size = max(1, pg.PageInfo.TotalPages), pg.PageInfo.PageSize
	}
	for _, rd := range live {
		rd.reset(tw.start)
	}
}

// enrich reads what the page's loans need besides themselves, once for
// every reader that needs it: their CLMM positions, their quotes, the
// mints they show and the prices of the positions' mints. A read that
// fails ends the walk for the readers that needed it; the others go on.
// It returns the readers still live.
func (tw *tickWalk) enrich(ctx context.Context, page *policies.Observation, live []*loanReader) []*loanReader {
	o := tw.w.o
	var all pageNeeds
	for _, rd := range live {
		all.Positions = all.Positions || rd.needs.Positions
		all.Quotes = all.Quotes || rd.needs.Quotes
		all.PositionValues = all.PositionValues || rd.needs.PositionValues
		all.LoanValues = all.LoanValues || rd.needs.LoanValues
	}
	failed := func(need func(pageNeeds) bool, err error) {
		for _, rd := range live {
			if need(rd.needs) {
				tw.fail(rd, err)
			}
		}
		live = slices.DeleteFunc(live, func(rd *loanReader) bool { return need(rd.needs) })
	}
	if all.Positions {
		if err := o.observePositions(ctx, page); err != nil {
			failed(func(n pageNeeds) bool { return n.Positions }, err)
		}
	}
	if all.Quotes {
		if err := o.observeQuotes(ctx, nil, page, tw.memo); err != nil {
			failed(func(n pageNeeds) bool { return n.Quotes }, err)
		}
		tw.addBest(page.Quotes)
	}
	o.learnTokens(ctx, page)
	if all.PositionValues {
		o.prices.pricePositions(ctx, page)
	}
	if all.LoanValues {
		o.prices.priceLoans(ctx, page)
	}
	return live
}

// addBest keeps the best quote of every key the walk has read.
func (tw *tickWalk) addBest(qs []policies.QuoteObservation) {
	for _, q := range qs {
		k := q.PrincipalMint + "|" + q.Duration.Key() + "|" + q.Quote.CollateralIdentifier
		if prev, ok := tw.best[k]; !ok || q.Quote.Amount > prev.Quote.Amount {
			tw.best[k] = q
		}
	}
}

// view is the page as readers with needs n see it: its positions and the
// walk's best quotes only when they asked for them, so that their facts
// are derived from what they read. Readers with the same needs share one
// view, and with it its facts (policies.Sieve.Add).
func (tw *tickWalk) view(page *policies.Observation, n pageNeeds) *policies.Observation {
	v := &policies.Observation{Wallet: page.Wallet, SnapshotTime: page.SnapshotTime, Loans: page.Loans,
		Tokens: page.Tokens, Unpriced: page.Unpriced}
	if n.Positions {
		v.Positions = page.Positions
	}
	if n.Quotes {
		v.Quotes = make([]policies.QuoteObservation, 0, len(tw.best))
		for _, k := range slices.Sorted(maps.Keys(tw.best)) {
			v.Quotes = append(v.Quotes, tw.best[k])
		}
	}
	return v
}

// finish ends the read of every reader still taking pages with err (nil:
// every page handed over), and releases them.
func (tw *tickWalk) finish(err error) {
	if err == nil {
		tw.checkPace(true)
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("reading loans: %w", err)
	}
	for _, rd := range tw.readers {
		if rd.err == nil && !rd.gone {
			rd.err = err
		}
		close(rd.done)
	}
	if !tw.reported && err == nil {
		tw.w.setSlow(tw.key, false)
	}
}

// reset drops what the reader kept of an earlier walk, making its sieve
// at now on the first walk.
func (rd *loanReader) reset(now time.Time) {
	if rd.sieve != nil {
		if rd.active == nil {
			rd.active = rd.sieve(now)
		} else {
			rd.active.Reset()
		}
		return
	}
	rd.snap, rd.seen = &market.LoansSnapshot{}, map[string]bool{}
}

// add hands the reader one page, as view v (a sieve) or as it came (a
// whole read).
func (rd *loanReader) add(pg *market.LoansPage, v *policies.Observation) {
	if rd.active != nil {
		rd.active.Add(v)
		return
	}
	rd.snap.AddPage(pg, rd.seen)
}

// setSlow records whether the walks of group key were last reported as
// unable to finish before the next tick, and reports whether that changed.
func (w *loanWalks) setSlow(key string, slow bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.slow[key] == slow {
		return false
	}
	if w.slow == nil {
		w.slow = map[string]bool{}
	}
	if slow {
		w.slow[key] = true
	} else {
		delete(w.slow, key)
	}
	return true
}

// minPagesForRate is how many pages a walk reads before its own pace,
// rather than the configured rate limit, predicts when it will end.
const minPagesForRate = 8

// checkPace says, once, that the walk cannot end before the next run of
// one of its readers' policies is due, with the figures an operator needs
// to change that: the pages, the page size, the pace, the time the pass
// takes and the time it has. It is said again only after a walk of the
// same readers has ended in time. finished is set when the walk has read
// its last page.
func (tw *tickWalk) checkPace(finished bool) {
	if tw.reported || tw.total == 0 {
		return
	}
	due := earliestDue(tw.readers)
	if due.IsZero() {
		return
	}
	now := tw.w.o.now()
	elapsed := now.Sub(tw.start)
	rate := tw.w.rps // pages a second: one request a page
	if tw.pages >= minPagesForRate && elapsed > 0 {
		rate = float64(tw.pages) / elapsed.Seconds()
	}
	end := now
	if !finished {
		if rate <= 0 {
			return
		}
		end = now.Add(time.Duration(float64(tw.total-tw.pages) / rate * float64(time.Second)))
	}
	if !end.After(due) {
		return
	}
	tw.reported = true
	if !tw.w.setSlow(tw.key, true) {
		return // said already, and no walk of these readers has ended in time since
	}
	tw.w.o.logger.Warn("A pass over the loans cannot end before the next tick: ticks will be skipped until it does",
		"policies", len(tw.readers), "pages", tw.total, "pages_read", tw.pages, "page_size", tw.size,
		"pages_per_second", round2(rate), "rate_limit_rps", tw.w.rps, "pass_takes", end.Sub(tw.start).Round(time.Second),
		"next_tick_in", due.Sub(tw.start).Round(time.Second), "change", advice(tw.total, tw.size, due.Sub(tw.start), end.Sub(tw.start)))
}

// earliestDue is the earliest time a reader's policy should run next
// (zero: none says).
func earliestDue(rs []*loanReader) time.Time {
	var due time.Time
	for _, rd := range rs {
		if !rd.due.IsZero() && (due.IsZero() || rd.due.Before(due)) {
			due = rd.due
		}
	}
	return due
}

// advice says what would let a walk of pages pages of size loans, which
// takes pass, end within interval: the rate it needs (with a quarter to
// spare), larger pages, or a longer schedule.
func advice(pages, size int, interval, pass time.Duration) string {
	need := float64(pages) / max(interval.Seconds(), 1)
	return fmt.Sprintf("raise market.rate_limit.rps to at least %.1f if the market allows it, "+
		"or market.page_size above %d if the market takes larger pages, "+
		"or schedule these policies at least %s apart", need*1.25, size, (pass * 5 / 4).Round(time.Second))
}

// round2 rounds x to two decimals, for logs.
func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
