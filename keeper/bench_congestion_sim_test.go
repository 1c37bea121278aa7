package keeper

import (
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// congestionBench turns on TestBenchCongestion, the side-by-side landing
// benchmark of docs/benchmarks.md ("Repays under congestion").
var congestionBench = flag.Bool("congestion.bench", false, "run the repay-under-congestion benchmark (minutes of CPU)")

// congestionLoans is how many unhealthy loans the benchmark repays in one
// pass, each under its own competing load.
const congestionLoans = 20

// TestBenchCongestion repays congestionLoans unhealthy loans in one pass on
// the simulator with 20 ms injected on every request and a competing load
// on each loan and on the wallet (prices 50,000 to 400,000 µlamports per
// unit: the clearing price is about the median), once with keeper as built
// and once with priority pricing off (chain.priority.off: keeper before
// it priced); keeper as built also acts on the pass's repays one after
// another (action_concurrency 1: keeper before it overlapped them) and 8
// at once. It logs, per variant: the share of repays landed within
// their first blockhash window, slots from send to landing p50/p99, slots
// from the pass's start (the price move) to landing p50/p99, lamports paid,
// and the compute-unit price paid over the fee market's p75 read before the
// pass. Time is synctest's, so the figures do not depend on the machine.
func TestBenchCongestion(t *testing.T) {
	if !*congestionBench {
		t.Skip("run with -congestion.bench")
	}
	off := "  priority: {off: true}\n"
	for _, v := range []struct {
		name, extra string
		loans       int
		concurrency int // action_concurrency; 0: the default
	}{{"priced", "", congestionLoans, 0}, {"priced-in-turn", "", congestionLoans, 1}, {"priced-8-at-once", "", congestionLoans, 8},
		{"off", off, congestionLoans, 0}, {"priced-one-loan", "", 1, 0}, {"off-one-loan", off, 1, 0}} {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { benchCongestion(t, v.extra, v.loans, v.concurrency) })
		})
	}
}

func benchCongestion(t *testing.T, chainExtra string, loans, concurrency int) {
	var names []string
	for i := range loans {
		names = append(names, fmt.Sprintf("l%d", i))
	}
	text := congestionScenarioYAML(names)
	sc, err := sim.ParseScenario("bench-congestion.yaml", []byte(text))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	cfg := strings.Replace(benchConfig, "  commitment: confirmed\n", "  commitment: confirmed\n"+chainExtra, 1)
	if concurrency > 0 {
		cfg += fmt.Sprintf("action_concurrency: %d\n", concurrency)
	}
	w := newSimWorld(t, simOptions{scenario: sc, faults: benchFaults(), configYAML: cfg})
	k := w.openWithRepays(t, loans)
	p75 := marketP75(t, w, names)
	start := time.Now()
	_ = k.RunOnce(t.Context()) // unlanded repays are the run's error
	startSlot := slotAt(w, start)
	var sendSlots, reactSlots, actSlots []uint64
	var paid, first uint64
	var ratio []float64
	for _, a := range k.actionsOf(t, "auto-repay") {
		if a.State != journal.StateLanded {
			continue
		}
		at := a.Attempts[len(a.Attempts)-1]
		if len(a.Attempts) == 1 {
			first++
		}
		x, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(at.Signatures[0].Signature))
		if !ok {
			continue
		}
		sendSlots = append(sendSlots, x.Slot-slotAt(w, x.Sent))
		reactSlots = append(reactSlots, x.Slot-startSlot)
		actSlots = append(actSlots, x.Slot-slotAt(w, a.CreatedAt))
		paid += x.Fee
		if b := landedTx(t, at).Budget(); b.HasPrice && p75[a.Target] > 0 {
			ratio = append(ratio, float64(b.Price)/float64(p75[a.Target]))
		}
	}
	t.Logf("repays %d: landed in the first blockhash window %d (%.0f %%); send→landing slots p50 %d p99 %d; "+
		"action start→landing slots p50 %d p99 %d; pass start→landing slots p50 %d p99 %d; lamports paid %d (%d per repay landed); price/p75 max %.2f",
		loans, first, 100*float64(first)/float64(loans), pct(sendSlots, 50), pct(sendSlots, 99),
		pct(actSlots, 50), pct(actSlots, 99), pct(reactSlots, 50), pct(reactSlots, 99), paid, paid/max(uint64(len(sendSlots)), 1), maxOf(ratio))
}

// congestionScenarioYAML is benchScenario's market with a competing load
// on each loan and on the wallet from 1 s on.
func congestionScenarioYAML(loans []string) string {
	var sb strings.Builder
	sb.WriteString(benchScenarioText(0, len(loans)))
	sb.WriteString("events:\n  - at: 1s\n    congestion: {accounts: [$wallet, " + strings.Join(loans, ", ") + "], prices: [50000, 100000, 400000]}\n")
	return sb.String()
}

// marketP75 reads the fee market's p75 over each loan and the wallet, as
// keeper would price its repay.
func marketP75(t *testing.T, w *simWorld, loans []string) map[string]uint64 {
	co := chainOptions(w.cfg, NewMetrics(nil), slog.New(slog.DiscardHandler))
	co.HTTPClient = w.net.client()
	cl, err := chain.New(co)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out := map[string]uint64{}
	for _, name := range loans {
		loan := w.address(t, "loan", name)
		fees, err := cl.RecentPrioritizationFees(t.Context(), []solana.PublicKey{loan, w.wallet()})
		if err != nil {
			t.Fatal(err)
		}
		out[loan.String()] = chain.FeePercentile(fees, 75)
	}
	return out
}

// slotAt is the chain's slot at wall time at.
func slotAt(w *simWorld, at time.Time) uint64 {
	return uint64(max(at.Sub(w.sim.StartTime()), 0) / chainsim.SlotDuration)
}

// pct is the p-th percentile (nearest rank) of v; 0 for none.
func pct(v []uint64, p int) uint64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	return s[(p*len(s)+99)/100-1]
}

func maxOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Max(v)
}

// openWithRepays opens keeper on w with an auto-repay policy of benchScenario's
// USDC loans that acts on up to loans of them per run, 20 s into the
// scenario.
func (w *simWorld) openWithRepays(t *testing.T, loans int) *simKeeper {
	w.writePolicy(t, "repay.yaml", fmt.Sprintf(`policies:
  - name: auto-repay
    kind: repay
    schedule: "@every 1m"
    select: {principal_mints: [%s]}
    params: {trigger_health: 0.2, target_health: 0.3, min_amount: 1000000, max_amount: 500000000}
    limits: {max_actions_per_run: %d}
`, w.address(t, "mint", "USDC"), loans))
	k := w.open(t, "")
	w.advance(t, 20*time.Second)
	return k
}
