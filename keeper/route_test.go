package keeper

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/signer"
)

// fakeFees is a fee market whose recent blocks all charged price to the
// transactions write-locking the accounts asked about. It counts its reads.
type fakeFees struct {
	price uint64
	log   *eventLog

	mu    sync.Mutex
	reads int
}

// RecentPrioritizationFees implements action.FeeMarket.
func (f *fakeFees) RecentPrioritizationFees(context.Context, []solana.PublicKey) ([]chain.PrioritizationFee, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	f.log.add("fees")
	return []chain.PrioritizationFee{{Slot: 1, MicroLamports: f.price}}, nil
}

// readCount is how many times the fee market was read.
func (f *fakeFees) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

// TestRouteSimulationServesTheGuard: with pricing on, keeper simulates the
// answer as built while it reads the fee market. When the answer is sent
// as built (nobody competes), the guard takes that simulation as its own:
// one simulation, made before the build is journaled, and a spend it shows
// failing is refused under the same rule as when the guard simulated
// itself. When the market competes and the answer cannot be sized (its
// simulation failed), the guard takes that failure too rather than
// simulating the same bytes again: one simulation, not two.
func TestRouteSimulationServesTheGuard(t *testing.T) {
	failAt := func(ix int) simReply {
		return simReply{err: &chain.SimError{Err: map[string]any{"InstructionError": []any{float64(ix), map[string]any{"Custom": float64(1)}}}}}
	}
	spendFailed := journal.Rule(signer.RuleSimulatedSpendFailed)
	cases := []struct {
		name    string
		price   uint64
		market  []marketReply
		sims    []simReply
		path    pathCase
		refusal journal.Rule
	}{
		{name: "quiet: sent as built on the route's simulation",
			path: pathCase{want: action.OutcomeLanded, state: journal.StateLanded, builds: 1, sims: 1, signed: []int{1}, sent: 1,
				outcomes: []journal.State{journal.StateLanded}, fee: simFee}},
		{name: "quiet: a spend the route's simulation stops is refused",
			market: []marketReply{{hostile: hostileTokenTransfer}}, sims: []simReply{failAt(1)},
			path: pathCase{want: action.OutcomeRefused, state: journal.StateRefused, rule: spendFailed, builds: 1, sims: 1,
				outcomes: []journal.State{journal.StateRefused}},
			refusal: spendFailed},
		{name: "contested: a spend that stops the sizing simulation is refused on it",
			price: 1_000, market: []marketReply{{hostile: hostileTokenTransfer}}, sims: []simReply{failAt(1)},
			path: pathCase{want: action.OutcomeRefused, state: journal.StateRefused, rule: spendFailed, builds: 1, sims: 1,
				outcomes: []journal.State{journal.StateRefused}},
			refusal: spendFailed},
		{name: "contested: a failing sizing simulation expires the attempt",
			price: 1_000, sims: []simReply{failAt(0)},
			path: pathCase{want: action.OutcomeRetry, state: journal.StateExpired, rule: journal.RuleSimFailed, builds: 1, sims: 1,
				outcomes: []journal.State{journal.StateExpired}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.fees = &fakeFees{price: tc.price, log: w.log}
			k := w.open(t, "sqlite::memory:")
			w.market.script(tc.market...)
			w.sub.scriptSims(tc.sims...)
			p := repayPlan("route")
			if got := k.run(p); got != tc.path.want {
				t.Fatalf("outcome = %s, want %s", got, tc.path.want)
			}
			checkPath(t, w, k, p, tc.path)
			if n := w.fees.readCount(); n != 1 {
				t.Errorf("fee market read %d times, want 1", n)
			}
			steps := w.log.list()
			if sim, built := slices.Index(steps, "simulate"), slices.Index(steps, "journal.RecordBuilt"); sim < 0 || built < 0 || sim > built {
				t.Errorf("steps %v: want the one simulation made beside the fee read, before the build is journaled", steps)
			}
			if tc.refusal != "" {
				if got := k.refusals(string(tc.refusal)); got != 1 {
					t.Errorf("guard_refusals_total{rule=%s} = %v, want 1", tc.refusal, got)
				}
				if slices.Contains(steps, "signer.SignSequence") {
					t.Errorf("steps %v: the answer was signed though its simulation was refused", steps)
				}
			}
		})
	}
}
