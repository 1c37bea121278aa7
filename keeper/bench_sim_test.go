package keeper

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// benchScenario is a market with no scripted events: healthy loans of the
// wallet (10 SOL against 500 USDC, health ~0.61) and unhealthy ones (10 SOL
// against 1,100 USDC, health ~0.14, under auto-repay's trigger 0.2).
func benchScenario(b testing.TB, healthy, unhealthy int) *scenario.Scenario {
	b.Helper()
	sc, err := sim.ParseScenario("bench.yaml", []byte(benchScenarioText(healthy, unhealthy)))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// benchScenarioText is benchScenario's YAML.
func benchScenarioText(healthy, unhealthy int) string {
	var sb strings.Builder
	sb.WriteString(`name: bench
wallet: {sol: "10", tokens: {USDC: "1000000"}}
mints:
  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: SOL, decimals: 9, price: 150}
wallets:
  - {name: lender, fund: {sol: "2"}}
strategies:
  - name: beta
    authority: lender
    principal_mint: USDC
    idle: "100000"
    terms:
      - {collateral: SOL, ltv: 650000, lqt: 850000, apys: {30d: 95000}}
loans:
`)
	for i := range healthy + unhealthy {
		principal := "500"
		if i < unhealthy {
			principal = "1100"
		}
		fmt.Fprintf(&sb, "  - {name: l%d, borrower: $wallet, collateral: [{mint: SOL, amount: \"10\"}], ledgers: [{strategy: beta, principal: %q, term: 30d}]}\n", i, principal)
	}
	return sb.String()
}

// benchConfigYAML is simConfigYAML without client-side rate limits (the
// default 10 requests/s would dominate a 100-page read) and with a poll
// interval shorter than a slot, so keeper sees a confirmation soon after
// the chain has it.
var benchConfig = strings.NewReplacer(
	"  commitment: confirmed\n", "  commitment: confirmed\n  poll: 50ms\n  rate_limit: {rps: 100000, burst: 100000}\n",
	"  earn_program_id:", "  rate_limit: {rps: 100000, burst: 100000}\n  earn_program_id:",
).Replace(simConfigYAML)

// benchLatency is the fixed latency injected on every market, RPC and Jito request.
const benchLatency = 20 * time.Millisecond

// benchFaults injects benchLatency on every request of every service.
func benchFaults() faults.Faults {
	every := inject.MethodFaults{Latency: benchLatency}
	return faults.Faults{
		Chain:  chainsim.Faults{RPC: inject.ServiceFaults{All: every}, Jito: inject.ServiceFaults{All: every}},
		Market: faults.Market{All: every},
	}
}

// landTimes records, in wall time, when each transaction landed and in
// which slot.
type landTimes struct {
	mu    sync.Mutex
	at    []time.Time
	slots []uint64
}

func (l *landTimes) add(x chainsim.Landed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at, l.slots = append(l.at, time.Now()), append(l.slots, x.Slot)
}

// BenchmarkRunOnceLoans measures a full RunOnce of the auto-repay example
// over 10,000 loans of the wallet served by the simulator, every request
// delayed by a fixed 20 ms, in real time. Reported per run:
//
// Requests may overlap (a loans walk keeps two pages in flight), so the
// run's wall time is split by what was happening at each instant, in this
// order of precedence:
//
//   - latency-ms: some request was in its injected latency (the union of
//     the requests' latency intervals);
//   - server-ms: otherwise, the simulator was processing some request
//     (work a real deployment does on the server);
//   - chain-ms: otherwise, a landed transaction waited for the next block,
//     which confirms it (chain time no client can avoid);
//   - keeper-ms: the rest, when keeper alone was on the critical path:
//     decoding, evaluation, journal, guard, signing, waits between polls;
//   - keeper/network: (wall − server) / (latency + chain), the goal being
//     at most 1.02.
func BenchmarkRunOnceLoans(b *testing.B) {
	for _, c := range []struct{ healthy, unhealthy int }{{10_000, 0}, {9_999, 1}} {
		b.Run(fmt.Sprintf("loans=%d/repays=%d", c.healthy+c.unhealthy, c.unhealthy), func(b *testing.B) {
			sc := benchScenario(b, c.healthy, c.unhealthy)
			var sum runFigures
			for range b.N {
				b.StopTimer()
				w := newSimWorld(b, simOptions{scenario: sc, faults: benchFaults(), configYAML: benchConfig, wallNow: time.Now})
				w.usePolicies(b, "auto-repay.yaml")
				lands := &landTimes{}
				w.sim.Chain().OnLanded(lands.add)
				k := w.open(b, "")
				b.StartTimer()
				start := time.Now()
				if err := k.RunOnce(context.Background()); err != nil {
					b.Fatalf("RunOnce: %v", err)
				}
				wall := time.Since(start)
				b.StopTimer()
				if got := len(k.actionsOf(b, "auto-repay")); got != c.unhealthy {
					b.Fatalf("%d repays, want %d", got, c.unhealthy)
				}
				sum.add(figures(w, lands, wall))
				_ = k.Close()
				b.StartTimer()
			}
			sum.report(b)
		})
	}
}

// runFigures are the parts of one run's wall time.
type runFigures struct {
	n                                int
	wall, latency, chain, server     time.Duration
	requests, marketCalls, pageCalls int
}

func (f *runFigures) add(g runFigures) {
	f.n++
	f.wall += g.wall
	f.latency += g.latency
	f.chain += g.chain
	f.server += g.server
	f.requests += g.requests
	f.marketCalls += g.marketCalls
	f.pageCalls += g.pageCalls
}

// report reports the mean figures of the runs.
func (f runFigures) report(b *testing.B) {
	if f.n == 0 {
		return
	}
	n := float64(f.n)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	keeper := f.wall - f.server - f.latency - f.chain // the parts are disjoint
	b.ReportMetric(ms(f.wall), "wall-ms")
	b.ReportMetric(ms(f.latency), "latency-ms")
	b.ReportMetric(ms(f.chain), "chain-ms")
	b.ReportMetric(ms(f.server), "server-ms")
	b.ReportMetric(ms(keeper), "keeper-ms")
	b.ReportMetric(float64(f.requests)/n, "requests")
	b.ReportMetric(float64(f.pageCalls)/n, "loan-pages")
	b.ReportMetric(float64(f.wall-f.server)/float64(f.latency+f.chain), "keeper/network")
}

// figures splits one run's wall time (see BenchmarkRunOnceLoans).
func figures(w *simWorld, lands *landTimes, wall time.Duration) runFigures {
	calls := w.net.log()
	f := runFigures{wall: wall, requests: len(calls)}
	var lat, srv, ch [][2]time.Time
	for _, c := range calls {
		lat = append(lat, [2]time.Time{c.Start, c.Start.Add(benchLatency)})
		if end := c.Start.Add(benchLatency); c.End.After(end) {
			srv = append(srv, [2]time.Time{end, c.End})
		}
		if c.Host == simMarketHost {
			f.marketCalls++
			if strings.HasSuffix(c.Path, "/loans/info") {
				f.pageCalls++
			}
		}
	}
	lands.mu.Lock()
	for i, at := range lands.at {
		confirmed := w.sim.StartTime().Add(time.Duration(lands.slots[i]+1) * chainsim.SlotDuration)
		if confirmed.After(at) {
			ch = append(ch, [2]time.Time{at, confirmed})
		}
	}
	lands.mu.Unlock()
	latSrv := slices.Concat(lat, srv)
	f.latency = unionLength(slices.Clone(lat))
	f.server = unionLength(slices.Clone(latSrv)) - f.latency
	f.chain = unionLength(slices.Concat(latSrv, ch)) - f.latency - f.server
	return f
}

// unionLength is the total length covered by the intervals.
func unionLength(spans [][2]time.Time) time.Duration {
	slices.SortFunc(spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var total time.Duration
	var end time.Time
	for _, s := range spans {
		if s[0].After(end) {
			total += s[1].Sub(s[0])
			end = s[1]
		} else if s[1].After(end) {
			total += s[1].Sub(end)
			end = s[1]
		}
	}
	return total
}
