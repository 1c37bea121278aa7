package keeper

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
)

// passLoans is how many unhealthy loans the pass tests repay in one run.
const passLoans = 4

// repayPass runs one pass of an auto-repay policy over passLoans unhealthy
// loans on the simulator, the wallet holding walletUSDC, with configExtra
// appended to the config, and returns the plan's action IDs in the
// evaluation's order and the journaled actions, oldest first.
func repayPass(t *testing.T, walletUSDC, configExtra string) (*simWorld, []string, []journal.Action) {
	text := strings.Replace(benchScenarioText(0, passLoans), `tokens: {USDC: "1000000"}`, `tokens: {USDC: "`+walletUSDC+`"}`, 1)
	sc, err := sim.ParseScenario("pass.yaml", []byte(text))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	w := newSimWorld(t, simOptions{scenario: sc, configYAML: simConfigYAML + configExtra})
	k := w.openWithRepays(t, passLoans)
	pps, err := k.Plan(t.Context())
	if err != nil || len(pps) != 1 || len(pps[0].Actions) != passLoans {
		t.Fatalf("plan: %v, %+v; want %d repays", err, pps, passLoans)
	}
	var ids []string
	for _, a := range pps[0].Actions {
		ids = append(ids, a.ID)
	}
	_ = k.RunOnce(t.Context()) // repays the wallet cannot pay are the run's error
	acts := k.actionsOf(t, "auto-repay")
	if len(acts) != passLoans {
		t.Fatalf("%d actions journaled, want %d", len(acts), passLoans)
	}
	return w, ids, acts
}

// inPlanOrder returns acts in the plan's order (plan holds their IDs).
func inPlanOrder(t *testing.T, plan []string, acts []journal.Action) []journal.Action {
	t.Helper()
	out := make([]journal.Action, 0, len(plan))
	for _, id := range plan {
		i := slices.IndexFunc(acts, func(a journal.Action) bool { return a.ID == id })
		if i < 0 {
			t.Fatalf("planned action %s not journaled", id)
		}
		out = append(out, acts[i])
	}
	return out
}

// assertInTurn fails unless each action of the plan began once the one
// before it had ended.
func assertInTurn(t *testing.T, plan []string, acts []journal.Action) {
	t.Helper()
	acts = inPlanOrder(t, plan, acts)
	for i, a := range acts[1:] {
		if prev := acts[i]; a.CreatedAt.Before(prev.UpdatedAt) {
			t.Errorf("action %d began at %s, before action %d ended at %s", i+1, a.CreatedAt, i, prev.UpdatedAt)
		}
	}
}

// TestPassRepaysOverlap: a crash takes several loans under their trigger at
// once; the run's repays are all on their way before the first has landed,
// and each lands.
func TestPassRepaysOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, _, acts := repayPass(t, "1000000", "")
		firstSettled := acts[0].SettledAt
		for _, a := range acts {
			if a.State != journal.StateLanded {
				t.Errorf("action %s is %s, want landed", a.ID, a.State)
			}
			if a.SettledAt.Before(firstSettled) {
				firstSettled = a.SettledAt
			}
		}
		if last := acts[len(acts)-1].CreatedAt; !last.Before(firstSettled) {
			t.Errorf("the last repay began at %s, after the first settled at %s: the repays ran in turn", last, firstSettled)
		}
	})
}

// TestPassActionConcurrencyOne: action_concurrency 1 acts on the run's
// repays one after another, in the plan's order, as keeper did before.
func TestPassActionConcurrencyOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, plan, acts := repayPass(t, "1000000", "action_concurrency: 1\n")
		assertInTurn(t, plan, acts)
	})
}

// TestPassWalletShortActsInTurn: when the wallet cannot pay every repay of
// the run, they run in turn, the most urgent first: it lands, and the ones
// the wallet can no longer pay fail in simulation, so no transaction fails
// on chain with its fee paid.
func TestPassWalletShortActsInTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, plan, acts := repayPass(t, "600", "")
		assertInTurn(t, plan, acts)
		acts = inPlanOrder(t, plan, acts)
		if acts[0].State != journal.StateLanded {
			t.Errorf("the most urgent repay is %s (%s), want landed", acts[0].State, acts[0].Detail)
		}
		if acts[len(acts)-1].State == journal.StateLanded {
			t.Errorf("every repay landed: the wallet's 600 USDC was meant to fall short")
		}
		for _, x := range w.landed.paidBy(w.wallet()) {
			if x.Err != nil {
				t.Errorf("transaction %s failed on chain with its fee paid: %v", x.Signature, x.Err)
			}
		}
	})
}
