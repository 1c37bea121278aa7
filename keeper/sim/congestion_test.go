package sim

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// TestCongestionEvents: congestion and jito events set the chain's fee market from their slot on,
// and a bad one is refused at parse time with its position.
func TestCongestionEvents(t *testing.T) {
	sc, err := ParseScenario("congestion.yaml", append(DefaultScenarioYAML(), []byte(`
  - at_slot: 10
    congestion: {accounts: [repay-me, $wallet], prices: [50000, 100000, 400000]}
  - at: 8s
    congestion: {off: true}
  - at_slot: 5
    jito: {non_jito_share: 1, tips: [1000, 9000], bundles: 4, room: 2}
`)...))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	e := newEnv(t, Options{Scenario: sc})
	m := e.sim.Chain().Market
	if m.JitoLeader(4) != true || m.JitoLeader(5) != false {
		t.Fatalf("Jito leaders of slots 4 and 5: %v %v, want true false", m.JitoLeader(4), m.JitoLeader(5))
	}
	if m.ClearingTip(4) != 0 || m.ClearingTip(5) == 0 {
		t.Fatalf("clearing tips of slots 4 and 5: %d %d, want 0 and some", m.ClearingTip(4), m.ClearingTip(5))
	}
	loan := e.addr(t, ids.KindLoan, "repay-me")
	e.advance(t, 30*chainsim.SlotDuration)
	fees := e.sim.Chain().Ledger.RecentPrioritizationFees([]solana.PublicKey{loan})
	loaded := map[uint64]bool{}
	for _, f := range fees {
		if f.Fee >= 50_000 {
			loaded[f.Slot] = true
		}
	}
	for s := uint64(10); s < 20; s++ {
		if !loaded[s] {
			t.Errorf("slot %d: no load on the loan (fees %+v)", s, fees)
		}
	}
	if loaded[9] || loaded[20] {
		t.Errorf("load outside slots 10 to 19: %v", loaded)
	}

	_, err = ParseScenario("bad.yaml", append(DefaultScenarioYAML(), []byte(`
  - at: 1s
    congestion: {accounts: [nobody-named-so], prices: [2, 1]}
`)...))
	if err == nil || !strings.Contains(err.Error(), "congestion") {
		t.Fatalf("bad congestion event: %v, want an error", err)
	}
}
