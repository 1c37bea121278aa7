package keeper

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/policies"
)

// addrMark stands for a loan's address in loanServer's template.
const addrMark = "@@LOAN@@"

// loanServer answers E3 in process with n loans of one borrower, each the
// simulator's answer for one loan with another address, made page by page
// as they are asked for, so that the market holds no loans and costs the
// same however many policies read them. Every answer takes latency, and
// carries the snapshot the benchmark pinned (a real market's moves; a walk
// whose pages carry two is read again).
type loanServer struct {
	item     []byte // one loan as the simulator answers it, its address replaced by addrMark
	n        int
	latency  time.Duration
	snapshot atomic.Int64 // the oracle snapshot every page is pinned to (unix seconds)
	requests atomic.Int64
}

// newLoanServer makes n loans from the simulator's answer for one loan of
// a healthy bench scenario; it returns the server and the loans' borrower.
func newLoanServer(b testing.TB, n int) (*loanServer, solana.PublicKey) {
	b.Helper()
	w := newSimWorld(b, simOptions{scenario: benchScenario(b, 1, 0)})
	body := fmt.Sprintf(`{"borrowers":[%q],"page":0,"pageSize":1}`, w.wallet())
	resp, err := w.net.client().Post("http://"+simMarketHost+"/v1/markets/loans/info", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || len(page.Items) != 1 {
		b.Fatalf("the simulator's loans: %v, %d items", err, len(page.Items))
	}
	var one struct {
		Loan struct {
			Address string `json:"address"`
		} `json:"loan"`
	}
	if err := json.Unmarshal(page.Items[0], &one); err != nil || one.Loan.Address == "" {
		b.Fatalf("the simulator's loan: %v", err)
	}
	item := bytes.ReplaceAll(page.Items[0], []byte(one.Loan.Address), []byte(addrMark))
	s := &loanServer{item: item, n: n}
	s.snapshot.Store(time.Now().Unix())
	return s, w.wallet()
}

// loanAddress is the address of generated loan i.
func loanAddress(i int) string {
	var pk solana.PublicKey
	binary.LittleEndian.PutUint64(pk[:8], uint64(i)+1)
	pk[31] = 7
	return pk.String()
}

// RoundTrip answers one E3 request with its page of the generated loans,
// pinned to the oracle snapshot of s.
func (s *loanServer) RoundTrip(r *http.Request) (*http.Response, error) {
	s.requests.Add(1)
	var q struct{ Page, PageSize int }
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.PageSize <= 0 {
		return nil, fmt.Errorf("loan server: bad request: %v", err)
	}
	pages := (s.n + q.PageSize - 1) / q.PageSize
	var buf bytes.Buffer
	buf.WriteString(`{"items":[`)
	for i := q.Page * q.PageSize; i < min(s.n, (q.Page+1)*q.PageSize); i++ {
		if i > q.Page*q.PageSize {
			buf.WriteByte(',')
		}
		buf.Write(bytes.ReplaceAll(s.item, []byte(addrMark), []byte(loanAddress(i))))
	}
	fmt.Fprintf(&buf, `],"pageInfo":{"page":%d,"pageSize":%d,"totalItems":%d,"totalPages":%d},"snapshotTs":%d,`+
		`"collateralMints":[],"principalMints":[]}`, q.Page, q.PageSize, s.n, pages, s.snapshot.Load())
	time.Sleep(s.latency)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(&buf), ContentLength: int64(buf.Len()), Request: r}, nil
}

// alertPolicies are n loan alerts of the wallet, each with its own
// threshold.
func alertPolicies(b testing.TB, n int) []*policies.Policy {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("policies:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - {name: low-%d, kind: alert, schedule: \"@every 1m\", select: {target: loans}, when: \"loan.health < %.4f\", params: {message: \"low\"}}\n",
			i, 0.05+0.5*float64(i)/float64(n))
	}
	ps, err := policies.Parse("alerts.yaml", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	return ps
}

// walkClient is a market client of s with the given options.
func walkClient(b testing.TB, s *loanServer, mutate func(*api.Options)) *api.Client {
	b.Helper()
	o := api.Options{BaseURL: "http://market.test/v1", HTTPClient: &http.Client{Transport: s},
		PageSize: 500, PagesInFlight: 4}
	if mutate != nil {
		mutate(&o)
	}
	c, err := api.New(o)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// loanPass is what the policies of a tick do with the loans: each observes
// them from the one shared walk, then evaluates what its sieve kept. It
// returns the targets evaluated in all.
func loanPass(ctx context.Context, o *observer, ps []*policies.Policy) (int, error) {
	var wg sync.WaitGroup
	evaluated := make([]int, len(ps))
	errs := make([]error, len(ps))
	for i, p := range ps {
		wg.Go(func() {
			state := &policies.State{}
			obs, err := o.observe(ctx, p, sieving{state: state})
			if err != nil {
				errs[i] = err
				return
			}
			res, err := policies.Evaluate(p, obs, obs.SievedAt(), policies.History{}, state)
			evaluated[i], errs[i] = res.Evaluated, err
		})
	}
	wg.Wait()
	n := 0
	for i := range ps {
		if errs[i] != nil {
			return 0, errs[i]
		}
		n += evaluated[i]
	}
	return n, nil
}

// memSampler samples the memory the Go runtime holds from the OS (mapped,
// less what it has returned) every 2 ms, keeping the peak.
type memSampler struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

// heldMemory is the memory the runtime holds now.
func heldMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

func startSampler() *memSampler {
	m := &memSampler{stop: make(chan struct{}), done: make(chan struct{}), peak: heldMemory()}
	go func() {
		defer close(m.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.peak = max(m.peak, heldMemory())
			}
		}
	}()
	return m
}

// end stops sampling and returns the peak.
func (m *memSampler) end() uint64 {
	close(m.stop)
	<-m.done
	return max(m.peak, heldMemory())
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoanPass is a pass of 1, 20 and 200 loan alerts over 100,000
// loans of the wallet, read from an in-process market (pages of 500, four
// in flight, no rate limit): every policy observes from the one walk and
// evaluates what it kept. It reports the E3 requests per pass, the CPU
// time per pass (the market's making of the pages included, the same for
// every count), and the peak memory above the idle process (the memory the
// Go runtime holds from the OS, sampled every 2 ms, above what it held
// after a collection before the pass).
func BenchmarkLoanPass(b *testing.B) {
	for _, loans := range []int{10_000, 100_000} {
		s, wallet := newLoanServer(b, loans)
		for _, n := range []int{1, 20, 200} {
			b.Run(fmt.Sprintf("loans=%d/policies=%d", loans, n), func(b *testing.B) {
				o := walkObserver(walkClient(b, s, nil), nil)
				o.wallet = wallet
				ps := alertPolicies(b, n)
				s.requests.Store(0)
				var peak uint64
				var cpu time.Duration
				for b.Loop() {
					b.StopTimer()
					runtime.GC()
					idle := heldMemory()
					s.snapshot.Store(time.Now().Unix())
					b.StartTimer()
					m, before := startSampler(), cpuTime(b)
					evaluated, err := loanPass(b.Context(), o, ps)
					cpu += cpuTime(b) - before
					peak = max(peak, m.end()-min(idle, m.peak))
					if err != nil || evaluated != n*loans {
						b.Fatalf("pass: %v, %d targets evaluated, want %d", err, evaluated, n*loans)
					}
				}
				b.ReportMetric(float64(s.requests.Load())/float64(b.N), "pages/pass")
				b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/pass")
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB-above-idle")
			})
		}
	}
}

// BenchmarkSievePage is one policy's evaluation of one page of 500 loans
// whose facts another policy's sieve has derived, as each further policy
// of a shared walk evaluates each page: what a pass costs per policy
// beyond the first.
func BenchmarkSievePage(b *testing.B) {
	s, wallet := newLoanServer(b, 500)
	c := walkClient(b, s, nil)
	pg, err := c.LoansInfo(b.Context(), market.LoansQuery{Page: new(0), PageSize: new(500)})
	if err != nil {
		b.Fatal(err)
	}
	ps := alertPolicies(b, 2)
	now := time.Now()
	base := &policies.Observation{Wallet: wallet.String(), SnapshotTime: now, Tokens: map[string]policies.Token{}}
	page := &policies.Observation{Wallet: wallet.String(), SnapshotTime: now, Loans: pg.Items, Tokens: base.Tokens}
	policies.NewSieve(ps[0], base, now, &policies.State{}, nil).Add(page)
	b.ReportAllocs()
	for b.Loop() {
		policies.NewSieve(ps[1], base, now, &policies.State{}, nil).Add(page)
	}
}

// TestPassTimeAtDefaultLimits reads 10,000 and 100,000 loans at the
// config's default limits (10 requests a second in bursts of 20, pages of
// 500, four in flight) from a market whose every answer takes 250 ms, on
// the test's clock, so that the time is the pacing's alone (decoding and
// evaluating take no time on it, and the loans are bare ones, cheap to
// make): 10,000 loans in 1.5 s, 100,000 in about 18 s; with pages of 100,
// as before market.page_size, 100,000 take about 100 s, longer than a
// one-minute schedule allows. The walk starts once its readers have
// gathered (gatherWindow).
func TestPassTimeAtDefaultLimits(t *testing.T) {
	d := config.Default()
	for _, tc := range []struct {
		loans, pageSize int
		atMost          time.Duration
	}{
		{10_000, d.Market.PageSize, 1500 * time.Millisecond},
		{100_000, d.Market.PageSize, 19 * time.Second},
		{100_000, 100, 100 * time.Second},
	} {
		wallet := solana.PublicKey{1}
		s := &loanServer{item: fmt.Appendf(nil, `{"loan":{"address":%q,"borrower":%q}}`, addrMark, wallet), n: tc.loans,
			latency: 250 * time.Millisecond}
		ps := alertPolicies(t, 1)
		synctest.Test(t, func(t *testing.T) {
			o := walkObserver(walkClient(t, s, func(o *api.Options) {
				o.RateLimit = api.RateLimit{PerSecond: d.Market.RateLimit.RPS, Burst: d.Market.RateLimit.Burst}
				o.PageSize, o.PagesInFlight = tc.pageSize, d.Market.PagesInFlight
			}), nil)
			o.wallet = wallet
			start := time.Now()
			if _, err := loanPass(t.Context(), o, ps); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start) - gatherWindow
			t.Logf("%d loans in pages of %d: %d pages in %v", tc.loans, tc.pageSize, s.requests.Load(), took)
			if took > tc.atMost || took < tc.atMost*8/10 {
				t.Errorf("%d loans in pages of %d took %v, want about %v", tc.loans, tc.pageSize, took, tc.atMost)
			}
		})
	}
}
