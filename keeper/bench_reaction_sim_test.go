package keeper

import (
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gorilla/websocket"

	"github.com/keeper-project/keeper/internal/pipenet"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// reactionBench turns on TestBenchReaction, the benchmark of
// docs/benchmarks.md ("Reaction under congestion").
var reactionBench = flag.Bool("reaction.bench", false, "run the price move → repay landed benchmark under congestion (a minute of CPU)")

// Reaction benchmark shape: reactionMoves SOL price moves of reactionStep
// each, reactionEvery slots apart from slot reactionFirst on; each takes
// one more loan under its trigger health.
const (
	reactionMoves = 24
	reactionStep  = 0.05
	reactionEvery = 10
	reactionFirst = 50
)

// TestBenchReaction runs the daemon (Keeper.Run, its watcher subscribed
// over the simulator's websocket) with a price-triggered auto-repay on a
// market under congestion (a competing load on every loan and on the
// wallet, prices 50,000 to 400,000 µlamports per unit: the clearing price
// is about the median), 20 ms injected on every market, RPC and Jito
// request (and, in a second variant, up to 20 ms more drawn per request).
// SOL falls reactionStep at a time, reactionMoves times; each move takes
// one loan (only it) under the trigger health. It logs the slots from each
// move's slot to its repay's landing slot (p50/p99), and where the time
// from the move's notification to the repay's send goes. Time is
// synctest's: keeper's own CPU time counts as nothing, the injected
// latency as what it is.
func TestBenchReaction(t *testing.T) {
	if !*reactionBench {
		t.Skip("run with -reaction.bench")
	}
	for _, v := range []struct {
		name   string
		jitter time.Duration
	}{{"20ms", 0}, {"20-40ms", benchLatency}} {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { benchReaction(t, v.jitter) })
		})
	}
}

func benchReaction(t *testing.T, jitter time.Duration) {
	sc, err := sim.ParseScenario("bench-reaction.yaml", []byte(reactionScenarioYAML()))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	f := benchFaults()
	f.Chain.RPC.All.Jitter, f.Chain.Jito.All.Jitter, f.Market.All.Jitter = jitter, jitter, jitter
	w := newSimWorld(t, simOptions{scenario: sc, faults: f, configYAML: benchConfig})
	serveWebsocket(t, w)
	w.writePolicy(t, "repay.yaml", fmt.Sprintf(`policies:
  - name: trigger-repay
    kind: repay
    schedule: "@every 1h"
    triggers:
      price: [{mint: %s, change: 0.03}]
    select: {principal_mints: [%s]}
    params: {trigger_health: 0.2, target_health: 0.9, min_amount: 1000000, max_amount: 2000000000}
`, w.address(t, "mint", "SOL"), w.address(t, "mint", "USDC")))
	k := w.open(t, "")
	r := k.start(t)
	last := time.Duration(reactionFirst+reactionEvery*reactionMoves) * chainsim.SlotDuration
	time.Sleep(last + 10*time.Second)
	synctest.Wait()
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup's stop
		t.Fatalf("the daemon ended: %v", err)
	default:
	}

	landed := map[string]chainsim.Landed{}
	for _, a := range k.actionsOf(t, "trigger-repay") {
		if a.State != journal.StateLanded {
			continue
		}
		at := a.Attempts[len(a.Attempts)-1]
		if x, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(at.Signatures[0].Signature)); ok {
			landed[a.Target] = x
		}
	}
	var slots []uint64
	var toSend []time.Duration
	var calls []int
	missing := 0
	for i := range reactionMoves {
		moved := uint64(reactionFirst + reactionEvery*i)
		x, ok := landed[w.address(t, "loan", fmt.Sprintf("l%d", i)).String()]
		if !ok {
			missing++
			continue
		}
		slots = append(slots, x.Slot-moved)
		notified := w.sim.StartTime().Add(time.Duration(moved+1) * chainsim.SlotDuration) // slot moved confirmed
		toSend = append(toSend, x.Sent.Sub(notified))
		calls = append(calls, len(w.net.callsBetween(notified, x.Sent)))
	}
	t.Logf("moves %d, repays landed %d; move → landed slots p50 %d p99 %d (max %d); notification → send ms p50 %d p99 %d; requests in it p50 %d p99 %d",
		reactionMoves, len(slots), pct(slots, 50), pct(slots, 99), pct(slots, 100),
		pct(msOf(toSend), 50), pct(msOf(toSend), 99), pct(intsOf(calls), 50), pct(intsOf(calls), 99))
	if n := len(slots); n > 0 {
		moved := uint64(reactionFirst + reactionEvery*(n/2))
		notified := w.sim.StartTime().Add(time.Duration(moved+1) * chainsim.SlotDuration)
		x := landed[w.address(t, "loan", fmt.Sprintf("l%d", n/2)).String()]
		var sb strings.Builder
		for _, c := range w.net.callsBetween(notified, x.Sent) {
			fmt.Fprintf(&sb, "\n  +%3d → +%3d ms %s %s%s", c.Start.Sub(notified).Milliseconds(), c.End.Sub(notified).Milliseconds(), c.Host, c.Path, c.Method)
		}
		t.Logf("move %d: notified at the start of slot %d, repay sent +%d ms, landed in slot %d; requests:%s",
			n/2, moved+1, x.Sent.Sub(notified).Milliseconds(), x.Slot, sb.String())
	}
	if missing > 0 {
		t.Errorf("%d moves without a landed repay of their loan", missing)
	}
}

// reactionScenarioYAML is a market of reactionMoves SOL-backed USDC loans:
// loan i's health falls under 0.2 at the (i+1)-th move and not before,
// under a competing load on every loan and on the wallet from 1 s on, and
// SOL's price moves.
func reactionScenarioYAML() string {
	var sb strings.Builder
	sb.WriteString(`name: bench-reaction
wallet: {sol: "10", tokens: {USDC: "1000000"}}
mints:
  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: SOL, decimals: 9, price: 150, address: So11111111111111111111111111111111111111112,
     pyth: ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d}
wallets:
  - {name: lender, fund: {sol: "2"}}
strategies:
  - name: beta
    authority: lender
    principal_mint: USDC
    idle: "100000"
    terms:
      - {collateral: SOL, ltv: 700000, lqt: 850000, apys: {30d: 95000}}
loans:
`)
	var names []string
	price := 150.0
	for i := range reactionMoves {
		price *= 1 - reactionStep
		// Health is 1 − debt / (collateral × price × lqt): 10 SOL at lqt
		// 0.85 is under 0.2 once the debt passes 6.8 × the price; 2 % past
		// it here, and the move before leaves it above.
		fmt.Fprintf(&sb, "  - {name: l%d, borrower: $wallet, collateral: [{mint: SOL, amount: \"10\"}], ledgers: [{strategy: beta, principal: \"%.0f\", term: 30d}]}\n",
			i, 6.8*price*1.02)
		names = append(names, fmt.Sprintf("l%d", i))
	}
	sb.WriteString("events:\n  - at: 1s\n    congestion: {accounts: [$wallet, " + strings.Join(names, ", ") + "], prices: [50000, 100000, 400000]}\n")
	for i := range reactionMoves {
		fmt.Fprintf(&sb, "  - at_slot: %d\n    price_move: {mint: SOL, by: %g}\n", reactionFirst+reactionEvery*i, -reactionStep)
	}
	return sb.String()
}

// serveWebsocket serves the simulator's RPC websocket to keeper's watcher
// over in-memory connections (pipenet, which a synctest bubble's clock
// waits on), as a node's pubsub port: every websocket dial of the test
// reaches it. The dialer is gorilla's package default, which the chain
// client's DialPubSub uses, swapped for the test and restored after it;
// the keeper tests do not run in parallel.
func serveWebsocket(t *testing.T, w *simWorld) {
	l := pipenet.NewListener(simRPCHost)
	srv := &http.Server{Handler: w.sim.Handlers().RPC, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(l)
	}()
	prev := websocket.DefaultDialer
	websocket.DefaultDialer = &websocket.Dialer{NetDialContext: l.DialContext, HandshakeTimeout: 10 * time.Second}
	t.Cleanup(func() {
		websocket.DefaultDialer = prev
		_ = srv.Close()
		<-served
	})
}

// callsBetween lists the calls made from from on and started before to.
func (n *simNet) callsBetween(from, to time.Time) []netCall {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []netCall
	for _, c := range n.calls {
		if !c.Start.Before(from) && c.Start.Before(to) {
			out = append(out, c)
		}
	}
	return out
}

// msOf is ds in whole milliseconds.
func msOf(ds []time.Duration) []uint64 {
	out := make([]uint64, len(ds))
	for i, d := range ds {
		out[i] = uint64(max(d, 0).Milliseconds())
	}
	return out
}

// intsOf is ns as uint64s.
func intsOf(ns []int) []uint64 {
	out := make([]uint64, len(ns))
	for i, n := range ns {
		out[i] = uint64(n)
	}
	return out
}
