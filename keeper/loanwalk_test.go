package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// pagedMarket serves a walk of pages once release is closed, counting
// the walks it was asked for.
type pagedMarket struct {
	Market // nil: only LoanPages is called
	pages  []*market.LoansPage

	release chan struct{}
	mu      sync.Mutex
	walks   int
}

func (m *pagedMarket) LoanPages(ctx context.Context, _ market.LoansQuery, visit func(int, *market.LoansPage) error) error {
	m.mu.Lock()
	m.walks++
	m.mu.Unlock()
	select {
	case <-m.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, p := range m.pages {
		if err := visit(1, p); err != nil {
			return err
		}
	}
	return nil
}

// pageRecorder records the first loan of every page it is handed, failing
// at the page whose first loan is failAt.
type pageRecorder struct {
	got    []string
	failAt string
}

func (r *pageRecorder) visit(_ int, p *market.LoansPage) error {
	addr := p.Items[0].Loan.Address
	if addr == r.failAt {
		return fmt.Errorf("cannot read what page %s needs", addr)
	}
	r.got = append(r.got, addr)
	return nil
}

func threePages() []*market.LoansPage {
	var out []*market.LoansPage
	for _, a := range []string{"A", "B", "C"} {
		out = append(out, &market.LoansPage{Items: []market.LoanItem{{Loan: market.Loan{Address: a}}}})
	}
	return out
}

// TestPoliciesOfATickShareAPageByPageWalk: policies that ask for the same
// large loan set before its walk has handed over a page share the walk and
// are each handed every page; one whose handler fails is handed nothing
// more while the others go on; one that comes after the first page walks
// on its own.
func TestPoliciesOfATickShareAPageByPageWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &pagedMarket{pages: threePages(), release: make(chan struct{})}
		w := &loanWalks{market: m}
		recs := []*pageRecorder{{}, {failAt: "B"}, {}}
		errs := make([]error, len(recs))
		var wg sync.WaitGroup
		for i, r := range recs {
			wg.Go(func() { errs[i] = w.pages(t.Context(), market.LoansQuery{}, "q", r.visit) })
			synctest.Wait() // the first starts the walk; the others join it in order
		}
		close(m.release)
		wg.Wait()
		if m.walks != 1 {
			t.Errorf("%d walks for three policies of one tick, want 1", m.walks)
		}
		for i, want := range [][]string{{"A", "B", "C"}, {"A"}, {"A", "B", "C"}} {
			if !reflect.DeepEqual(recs[i].got, want) {
				t.Errorf("policy %d handed %v, want %v", i, recs[i].got, want)
			}
		}
		if errs[0] != nil || errs[2] != nil || errs[1] == nil {
			t.Errorf("errors %v: want only the second policy's own", errs)
		}
		late := &pageRecorder{}
		if err := w.pages(t.Context(), market.LoansQuery{}, "q", late.visit); err != nil || m.walks != 2 || len(late.got) != 3 {
			t.Errorf("a later policy: %v after %d walks, handed %v; want its own walk of every page", err, m.walks, late.got)
		}
	})
}

// TestAPolicyLeavesAWalkItJoined: a policy whose run ends while it waits
// on a walk another started returns at once and is handed nothing more;
// a walk every policy has left or failed stops.
func TestAPolicyLeavesAWalkItJoined(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &pagedMarket{pages: threePages(), release: make(chan struct{})}
		w := &loanWalks{market: m}
		first, second := &pageRecorder{failAt: "A"}, &pageRecorder{}
		var firstErr error
		done := make(chan struct{})
		go func() { defer close(done); firstErr = w.pages(t.Context(), market.LoansQuery{}, "q", first.visit) }()
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		left := make(chan error)
		go func() { left <- w.pages(ctx, market.LoansQuery{}, "q", second.visit) }()
		synctest.Wait()
		cancel()
		if err := <-left; !errors.Is(err, context.Canceled) {
			t.Errorf("the policy that left got %v, want its context's end", err)
		}
		close(m.release)
		<-done
		if firstErr == nil || len(first.got)+len(second.got) != 0 {
			t.Errorf("first policy: %v, handed %v; second handed %v: want the first's own error and nothing handed", firstErr, first.got, second.got)
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

// TestAPageByPageWalkAsksEachQuoteOnce: the pages of a walk that outlasts
// the read cache are decided on one answer to each quote question, asked
// once.
func TestAPageByPageWalkAsksEachQuoteOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &quotedMarket{pages: 5}
		ps, err := policies.Parse("q.yaml", fmt.Appendf(nil, `policies:
  - {name: r, kind: repay, schedule: "@every 1m", select: {borrowers: [%[1]s]}, params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1, repay_all_within: 1h}}
`, borrower))
		if err != nil {
			t.Fatal(err)
		}
		reads := newReadCache(readTTL, time.Now)
		o := &observer{market: m, now: time.Now, logger: slog.New(slog.DiscardHandler), reads: reads,
			walks: &loanWalks{market: m, reads: reads}}
		obs, err := o.observeSieved(t.Context(), ps[0], ps[0].Reads(""), sieving{})
		if err != nil {
			t.Fatal(err)
		}
		if m.quotes != 1 || len(obs.Quotes) != 1 {
			t.Errorf("%d quote requests over a 10-second walk and %d quotes kept, want one of each", m.quotes, len(obs.Quotes))
		}
	})
}
