package keeper

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestALandedRepayReadsTheLoanAgain: after the example repay lands, keeper
// reads the loan again and journals its health before → after, which
// history and the notification show.
func TestALandedRepayReadsTheLoanAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.useUSDCRepay(t)
		k := w.open(t, "")
		w.advance(t, 15*time.Second)
		before := loanHealth(t, w, "repay-me")
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		acts := k.actionsOf(t, "auto-repay")
		if len(acts) != 1 {
			t.Fatalf("%d actions, want 1", len(acts))
		}
		after := loanHealth(t, w, "repay-me")
		want := fmt.Sprintf("health %.3f → %.3f", before, after)
		if acts[0].Detail != want {
			t.Errorf("landed action's detail %q, want %q", acts[0].Detail, want)
		}
	})
}

// TestARepayThatLeavesTheLoanLowSaysSo: a repay capped under what the
// target needs lands, and its outcome says the health is still under the
// trigger; the next run after the cooldown may act again.
func TestARepayThatLeavesTheLoanLowSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		data, err := os.ReadFile(filepath.Join("..", "examples", "policies", "auto-repay.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		usdc, _, _ := strings.Cut(string(data), "\n  # The same for loans in wrapped SOL")
		capped := strings.Replace(usdc, "max_amount: 500000000 ", "max_amount: 2000000   ", 1)
		if capped == usdc {
			t.Fatal("examples/policies/auto-repay.yaml changed: no max_amount of 500 USDC to cap")
		}
		w.writePolicy(t, "auto-repay.yaml", capped+"\n")
		k := w.open(t, "")
		w.advance(t, 15*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		acts := k.actionsOf(t, "auto-repay")
		if len(acts) != 1 {
			t.Fatalf("%d actions, want 1", len(acts))
		}
		if d := acts[0].Detail; !strings.HasPrefix(d, "health still low: ") || !strings.Contains(d, "under the trigger 0.200") {
			t.Errorf("landed action's detail %q, want it to say the health is still under the trigger", d)
		}
	})
}

// TestLandedPositionActionsReadThePositionAgain: after the example
// rebalance, fee claim and withdrawal claim land, keeper reads the target
// again and journals where it stands: back in range, no fees owed, the
// request paid out.
func TestLandedPositionActionsReadThePositionAgain(t *testing.T) {
	for _, tc := range []struct {
		file, policy string
		wait         time.Duration
		want         string
	}{
		{"rebalance.yaml", "rebalance-dex-a", 25 * time.Second, ", in range"},
		{"claim-fees.yaml", "claim-fees-dex-b", 30 * time.Second, " → 0 / 0 (base units"},
		{"claim-withdrawals.yaml", "claim-earn-withdrawals", 25 * time.Second, " paid out"},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, tc.file)
				k := w.open(t, "")
				w.advance(t, tc.wait)
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("RunOnce: %v", err)
				}
				acts := k.actionsOf(t, tc.policy)
				if len(acts) != 1 {
					t.Fatalf("%d actions, want 1", len(acts))
				}
				if d := acts[0].Detail; !strings.Contains(d, tc.want) || strings.Contains(d, "unknown") {
					t.Errorf("landed action's detail %q, want it to contain %q", d, tc.want)
				}
			})
		})
	}
}
