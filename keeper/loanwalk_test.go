package keeper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// pagedMarket serves a walk of pages once release is closed (nil: at
// once), each page every interval, counting the walks and remembering
// their queries.
type pagedMarket struct {
	Market   // nil: only LoanPages is called
	pages    []*market.LoansPage
	release  chan struct{}
	interval time.Duration

	mu       sync.Mutex
	queries  []market.LoansQuery
	returned int
}

func (m *pagedMarket) LoanPages(ctx context.Context, q market.LoansQuery, visit func(int, *market.LoansPage) error) error {
	m.mu.Lock()
	m.queries = append(m.queries, q)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.returned++
		m.mu.Unlock()
	}()
	if m.release != nil {
		select {
		case <-m.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, p := range m.pages {
		select {
		case <-time.After(m.interval):
		case <-ctx.Done():
			return ctx.Err()
		}
		pg := *p
		if err := visit(1, &pg); err != nil {
			return err
		}
	}
	return nil
}

// walks returns how many walks were asked for.
func (m *pagedMarket) walks() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queries)
}

// loanPages returns n pages of one loan each, of borrower, announcing n pages.
func loanPages(n int, borrower string) []*market.LoansPage {
	var out []*market.LoansPage
	for i := range n {
		out = append(out, &market.LoansPage{Items: []market.LoanItem{{Loan: market.Loan{Address: fmt.Sprint("loan-", i), Borrower: borrower}}},
			PageInfo: &market.PageInfo{Page: i, PageSize: 1, TotalItems: n, TotalPages: n}})
	}
	return out
}

// walkObserver is an observer whose loans come from m, logging to log.
func walkObserver(m Market, log *bytes.Buffer) *observer {
	h := slog.Handler(slog.DiscardHandler)
	if log != nil {
		h = slog.NewTextHandler(log, nil)
	}
	o := &observer{market: m, now: time.Now, logger: slog.New(h), reads: newReadCache(readTTL, time.Now)}
	o.walks = &loanWalks{market: m, o: o, gather: gatherWindow, rps: 10}
	return o
}

// wholeRead reads every loan of q through w in a goroutine; the returned
// function waits for it and returns the loans' addresses and the error.
func wholeRead(ctx context.Context, w *loanWalks, q market.LoansQuery) func() ([]string, error) {
	rd := &loanReader{query: q}
	done := make(chan error, 1)
	go func() { done <- w.read(ctx, rd) }()
	return func() ([]string, error) {
		err := <-done
		var got []string
		if err == nil {
			for _, it := range rd.snap.Items {
				got = append(got, it.Loan.Address)
			}
		}
		return got, err
	}
}

// TestReadersThatComeTogetherShareOneWalk: readers that come within the
// gathering window are fed from one walk, each handed every page; queries
// that differ only in their borrowers are read as one walk of the union of
// their borrowers; a query by loan addresses walks on its own; a reader
// that comes once the walk has started waits for the next batch.
func TestReadersThatComeTogetherShareOneWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &pagedMarket{pages: loanPages(3, "alice"), release: make(chan struct{})}
		w := walkObserver(m, nil).walks
		var waits []func() ([]string, error)
		for _, q := range []market.LoansQuery{{Borrowers: []string{"bob"}}, {Borrowers: []string{"alice"}}, {Borrowers: []string{"alice"}}} {
			waits = append(waits, wholeRead(t.Context(), w, q))
		}
		byAddress := wholeRead(t.Context(), w, market.LoansQuery{LoanAddresses: []string{"loan-1"}})
		time.Sleep(gatherWindow)
		synctest.Wait()
		late := wholeRead(t.Context(), w, market.LoansQuery{Borrowers: []string{"alice"}})
		close(m.release)
		for i, wait := range append(waits, byAddress, late) {
			if got, err := wait(); err != nil || len(got) != 3 {
				t.Errorf("reader %d: %v, handed %v; want every page", i, err, got)
			}
		}
		if n := m.walks(); n != 3 {
			t.Fatalf("%d walks, want 3: the merged borrowers, the loan addresses, the late reader", n)
		}
		if !slices.ContainsFunc(m.queries, func(q market.LoansQuery) bool { return slices.Equal(q.Borrowers, []string{"alice", "bob"}) }) {
			t.Errorf("walks of %+v, want one of the union of borrowers [alice bob]", m.queries)
		}
	})
}

// TestAReaderLeavesAWalk: a reader whose context ends while its walk runs
// returns at once and is handed nothing more, while the others go on; a
// walk every reader has left stops.
func TestAReaderLeavesAWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &pagedMarket{pages: loanPages(4, "alice"), interval: time.Second}
		w := walkObserver(m, nil).walks
		short, cancel := context.WithTimeout(t.Context(), 2500*time.Millisecond)
		defer cancel()
		stays := wholeRead(t.Context(), w, market.LoansQuery{})
		leaves := wholeRead(short, w, market.LoansQuery{})
		if _, err := leaves(); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the reader that left got %v, want its context's end", err)
		}
		if got, err := stays(); err != nil || len(got) != 4 {
			t.Errorf("the reader that stayed: %v, handed %v; want every page", err, got)
		}

		alone, cancelAlone := context.WithCancel(t.Context())
		wait := wholeRead(alone, w, market.LoansQuery{})
		time.Sleep(1500 * time.Millisecond)
		cancelAlone()
		if _, err := wait(); !errors.Is(err, context.Canceled) {
			t.Errorf("the only reader got %v, want its context's end", err)
		}
		synctest.Wait()
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.returned != 2 {
			t.Errorf("%d of 2 walks returned: the walk its only reader left goes on", m.returned)
		}
	})
}

// borrower owns the loans quotedMarket serves.
const borrower = "4LZC4BmvoqqE2PGbnk2cYiJtDCpVcmyRA4kkLQPSAvo4"

// quotedMarket serves loans that all ask the same best-quote question, one
// page every two seconds, and counts the questions.
type quotedMarket struct {
	Market
	pages  int
	mu     sync.Mutex
	quotes int
}

func (m *quotedMarket) LoanPages(ctx context.Context, _ market.LoansQuery, visit func(int, *market.LoansPage) error) error {
	for i := range m.pages {
		item := market.LoanItem{
			Loan:       market.Loan{Address: fmt.Sprint("loan-", i), Borrower: borrower},
			Collateral: []market.Collateral{{AssetIdentifier: "SOL", AssetMint: "SOL", Amount: 1}},
			Ledgers:    []market.Ledger{{PrincipalMint: "USDC", PrincipalDue: 1, Duration: 30, DurationType: market.DurationDays}},
		}
		if err := visit(1, &market.LoansPage{Items: []market.LoanItem{item}}); err != nil {
			return err
		}
		time.Sleep(2 * time.Second) // longer than the read cache keeps an answer
	}
	return nil
}

func (m *quotedMarket) BestQuotes(context.Context, market.QuoteRequest) ([]market.Quote, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quotes++
	return []market.Quote{{CollateralIdentifier: "SOL", Amount: 10, Ltv: 500_000}}, nil
}

// TestAWalkAsksEachQuoteOnce: the pages of a walk that outlasts the read
// cache are decided on one answer to each quote question, asked once for
// all the policies the walk feeds.
func TestAWalkAsksEachQuoteOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &quotedMarket{pages: 5}
		ps, err := policies.Parse("q.yaml", fmt.Appendf(nil, `policies:
  - {name: r, kind: repay, schedule: "@every 1m", select: {borrowers: [%[1]s]}, params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1, repay_all_within: 1h}}
  - {name: s, kind: repay, schedule: "@every 1m", select: {borrowers: [%[1]s]}, params: {trigger_health: 0.2, target_health: 0.3, max_amount: 1, repay_all_within: 2h}}
`, borrower))
		if err != nil {
			t.Fatal(err)
		}
		o := walkObserver(m, nil)
		var wg sync.WaitGroup
		obs := make([]*policies.Observation, len(ps))
		for i, p := range ps {
			wg.Go(func() {
				var err error
				if obs[i], err = o.observe(t.Context(), p, sieving{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if m.quotes != 1 || len(obs[0].Quotes) != 1 || len(obs[1].Quotes) != 1 {
			t.Errorf("%d quote requests over a 10-second walk feeding two policies, quotes kept %d and %d; want one each",
				m.quotes, len(obs[0].Quotes), len(obs[1].Quotes))
		}
	})
}

// TestAWalkThatCannotEndBeforeTheNextTickSaysSoOnce: a walk of 100 pages at
// one page a second, for policies due again in a minute, says once, before
// it ends, how many pages at what pace, how long the pass takes and what
// to set; the next walk of the same readers, as slow, says nothing more;
// once a walk has ended in time, a slow one says so again.
func TestAWalkThatCannotEndBeforeTheNextTickSaysSoOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		m := &pagedMarket{pages: loanPages(100, "alice"), interval: time.Second}
		w := walkObserver(m, &log).walks
		pass := func(pages int, due time.Duration) time.Duration {
			m.pages = loanPages(pages, "alice")
			start := time.Now()
			rd := &loanReader{query: market.LoansQuery{}, due: start.Add(due)}
			if err := w.read(t.Context(), rd); err != nil {
				t.Fatal(err)
			}
			return time.Since(start)
		}
		pass(100, time.Minute)
		said := strings.Count(log.String(), "cannot end before the next tick")
		if said != 1 {
			t.Fatalf("said %d times, want once:\n%s", said, log.String())
		}
		for _, want := range []string{"pages=100", "page_size=1", "rate_limit_rps=10", "next_tick_in=1m0s", "pass_takes=1m40s",
			"raise market.rate_limit.rps to at least 2.1", "schedule these policies at least 2m5s apart"} {
			if !strings.Contains(log.String(), want) {
				t.Errorf("the report lacks %q:\n%s", want, log.String())
			}
		}
		if !strings.Contains(log.String(), "pages_read=8 ") {
			t.Errorf("the report came after page %s, want once the pace was known (page 8):\n%s", between(log.String(), "pages_read=", " "), log.String())
		}
		pass(100, time.Minute)
		if n := strings.Count(log.String(), "cannot end"); n != 1 {
			t.Errorf("said %d times after a second slow walk, want once", n)
		}
		pass(10, time.Minute)
		pass(100, time.Minute)
		if n := strings.Count(log.String(), "cannot end"); n != 2 {
			t.Errorf("said %d times after a walk in time and a slow one, want twice", n)
		}
	})
}

// between returns what of s lies between after and the next until.
func between(s, after, until string) string {
	_, rest, _ := strings.Cut(s, after)
	v, _, _ := strings.Cut(rest, until)
	return v
}

// TestTheRetiredSharedWalkKeyIsIgnoredWithAWarning: a config that still
// sets market.shared_walk_max_loans starts, and keeper says once that it
// ignores the key and why.
func TestTheRetiredSharedWalkKeyIsIgnoredWithAWarning(t *testing.T) {
	cfg := config.Default()
	n := 15_000
	cfg.Market.SharedWalkMaxLoans = &n
	var log bytes.Buffer
	if _, err := newObserver(env{cfg: &cfg, logger: slog.New(slog.NewTextHandler(&log, nil)), metrics: NewMetrics(nil), now: time.Now}, deps{}, solana.PublicKey{}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), "market.shared_walk_max_loans is deprecated and ignored") != 1 {
		t.Errorf("log:\n%s\nwant one warning naming the key", log.String())
	}
}

// TestAPanickingReaderFailsAlone: a policy whose evaluation of a page
// panics fails with an error naming the panic, as its run would have, and
// the walk goes on for the other readers.
func TestAPanickingReaderFailsAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &pagedMarket{pages: loanPages(3, "alice")}
		w := walkObserver(m, nil).walks
		broken := &loanReader{query: market.LoansQuery{}, sieve: func(now time.Time) *policies.Sieve {
			return policies.NewSieve(nil, &policies.Observation{}, now, nil, nil) // no policy: Add panics
		}}
		done := make(chan error, 1)
		go func() { done <- w.read(t.Context(), broken) }()
		other := wholeRead(t.Context(), w, market.LoansQuery{})
		if got, err := other(); err != nil || len(got) != 3 {
			t.Errorf("the other reader: %v, handed %v; want every page", err, got)
		}
		if err := <-done; err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("the panicking reader got %v, want its panic as its error", err)
		}
	})
}
