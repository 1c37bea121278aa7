package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// twinRepayPolicy is a repay policy on the wallet's loans against SOL
// (format with its name, the SOL mint and its target health).
const twinRepayPolicy = `  - name: %s
    kind: repay
    schedule: "@every 5s"
    select:
      collateral_mints: [%s]
    params:
      trigger_health: 0.2
      target_health: %s
      min_amount: 1000000
      max_amount: 500000000
    limits:
      cooldown: 10m
`

// TestTwoPoliciesOneLoanOnSim: two repay policies select loan repay-me
// and run at once when SOL falls; they aim at different healths, so their
// repays differ and would both land. Exactly one lands; the other policy
// leaves the loan alone, in that run and in the next.
func TestTwoPoliciesOneLoanOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, "", "")})
		sol := w.address(t, ids.KindMint, "SOL").String()
		w.writePolicy(t, "twins.yaml", "policies:\n"+
			fmt.Sprintf(twinRepayPolicy, "repay-a", sol, "0.3")+fmt.Sprintf(twinRepayPolicy, "repay-b", sol, "0.35"))
		k := w.open(t, "")
		loan := w.address(t, ids.KindLoan, "repay-me").String()
		w.advance(t, 15*time.Second)
		if h := loanHealth(t, w, "repay-me"); h >= 0.2 {
			t.Fatalf("repay-me health %.3f before the run, want under the 0.2 trigger", h)
		}
		for run := range 3 {
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
			w.advance(t, 6*time.Second)
		}
		var landed []string
		for _, p := range []string{"repay-a", "repay-b"} {
			for _, a := range k.actionsOf(t, p) {
				if a.Target != loan {
					t.Errorf("%s acted on %s", p, a.Target)
				}
				if a.State == journal.StateLanded {
					landed = append(landed, a.Policy+": "+a.Reason)
				}
			}
		}
		if len(landed) != 1 {
			t.Errorf("%d repays of repay-me landed, want 1: %q", len(landed), landed)
		}
		if n := len(w.landed.paidBy(w.wallet())); n != 1 {
			t.Errorf("%d transactions landed, want the one repay", n)
		}
		if h := loanHealth(t, w, "repay-me"); h < 0.2 {
			t.Errorf("repay-me health %.3f after the runs, want repaid above the trigger", h)
		}
	})
}

// TestOtherPolicysOpenActionHoldsTargetOnSim: another policy's repay of
// repay-me is journaled as built (it may still be signed and land, say after a crash of
// an older keeper); a repay policy that selects the loan does not act on it
// while that action is open, and the run does not fail for it.
func TestOtherPolicysOpenActionHoldsTargetOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, "", "")})
		sol := w.address(t, ids.KindMint, "SOL").String()
		w.writePolicy(t, "repay.yaml", "policies:\n"+fmt.Sprintf(twinRepayPolicy, "repay-a", sol, "0.3"))
		k := w.open(t, "")
		loan := w.address(t, ids.KindLoan, "repay-me").String()
		openBuiltAction(t, k, "retired-policy", loan)
		w.advance(t, 15*time.Second)
		ps, err := k.policies.load()
		if err != nil {
			t.Fatal(err)
		}
		// A pass without startup recovery, as in the daemon between ticks.
		if err := errors.Join(k.runPass(t.Context(), ps)...); err != nil {
			t.Fatalf("the pass failed: %v", err)
		}
		if acts := k.actionsOf(t, "repay-a"); len(acts) != 0 {
			t.Errorf("repay-a journaled %d actions while another repay of the loan was open", len(acts))
		}
		if n := len(w.landed.paidBy(w.wallet())); n != 0 {
			t.Errorf("%d transactions landed, want none", n)
		}
	})
}

// openBuiltAction journals a repay of target by policy as built: an
// action that may still land.
func openBuiltAction(t *testing.T, k *simKeeper, policy, target string) {
	t.Helper()
	ctx := context.Background()
	id := strings.Repeat("ab", 16)
	if _, _, err := k.journal.Begin(ctx, journal.Intent{ID: id, Policy: policy, Kind: "repay", Target: target,
		Inputs: json.RawMessage(`{}`), Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	att, err := k.journal.NewAttempt(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.journal.RecordBuilt(ctx, id, att.Number, journal.Build{Mode: journal.ModeRPC, Transactions: []string{"AA=="}}); err != nil {
		t.Fatal(err)
	}
	if a, err := k.journal.Get(ctx, id); err != nil || a.State != journal.StateBuilt {
		t.Fatalf("the open action is %s (%v), want built", a.State, err)
	}
}
