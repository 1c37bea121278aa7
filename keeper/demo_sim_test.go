package keeper

import (
	"github.com/keeper-project/keeper/keeper/internal/action"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
)

// TestDemoScenarioSequence is `keeper run --sim` in virtual time on the scenario it plays: the
// market answers the two-term strategy update with two transactions and the network drops the
// second. keeper lands the first, waits for the second's blockhash to expire, journals the stop
// midway, and the policy's next plan lands what is left; the partial action is closed saying that
// part of it landed. Every other example policy lands as on the default scenario, and nothing is
// sent twice.
func TestDemoScenarioSequence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc, err := sim.DemoScenario()
		if err != nil {
			t.Fatal(err)
		}
		w := newSimWorld(t, simOptions{scenario: sc})
		w.usePolicies(t, exampleFiles...)
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(100 * time.Second)
		synctest.Wait()
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
		acts := k.actionsOf(t, "track-best-quote")
		var partial, rest *journal.Action
		for i := range acts {
			switch a := &acts[i]; {
			case a.State == journal.StateSkipped && a.Rule == journal.RuleSupersededPartial:
				partial = a
			case a.State == journal.StateLanded:
				rest = a
			}
		}
		if len(acts) != 2 || partial == nil || rest == nil {
			for _, a := range acts {
				t.Logf("track-best-quote action %s: %s %s %q", action.ShortID(a.ID), a.State, a.Rule, a.Detail)
			}
			t.Fatalf("track-best-quote journaled %d actions, want one closed after part of it landed and one that landed the rest", len(acts))
		}
		if !strings.Contains(partial.Detail, "transaction 0 of 2 landed") || len(partial.Attempts[0].Signatures) != 2 {
			t.Errorf("partial action: %q with %d transactions", partial.Detail, len(partial.Attempts[0].Signatures))
		}
		landed := 0
		for _, a := range []*journal.Action{partial, rest} {
			for _, s := range a.Attempts[len(a.Attempts)-1].Signatures {
				if _, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(s.Signature)); ok {
					landed++
				}
			}
		}
		if landed != 2 {
			t.Errorf("%d of the update's transactions landed, want one of each action", landed)
		}
		for _, p := range exampleActions {
			if p == "track-best-quote" {
				continue
			}
			if got := k.actionsOf(t, p); len(got) != 1 || got[0].State != journal.StateLanded {
				t.Errorf("policy %s journaled %d actions (want one, landed)", p, len(got))
			}
		}
	})
}
