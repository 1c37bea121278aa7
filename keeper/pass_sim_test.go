package keeper

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// TestRunOnceReportsUnsettledActions: a pass whose action could not be
// built (the market answers 500 to every build) leaves it unsettled, and
// RunOnce says so, naming the policy, instead of succeeding.
func TestRunOnceReportsUnsettledActions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "claim-withdrawals.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		down := faults.Faults{Market: faults.Market{Endpoints: map[string]inject.MethodFaults{
			market.EndpointWithdrawClaim: {Rates: inject.Rates{ServerError: 1}}}}}
		if err := w.sim.Faults().Set(down); err != nil {
			t.Fatal(err)
		}
		err := k.RunOnce(t.Context())
		ae, ok := errors.AsType[*ActionsError](err)
		if !ok || !errors.Is(err, ErrActionsFailed) {
			t.Fatalf("RunOnce: %v, want an *ActionsError", err)
		}
		if len(ae.Unsettled) != 1 || !strings.HasPrefix(ae.Unsettled[0], "claim-earn-withdrawals ") || len(ae.Failed)+len(ae.Refused) != 0 {
			t.Errorf("not done: %+v, want the claim unsettled", ae)
		}
		if !strings.Contains(err.Error(), "1 unsettled: claim-earn-withdrawals") {
			t.Errorf("error %q does not say which action", err)
		}
	})
}

// TestPoliciesOfAPassRunConcurrently: a repay whose transaction the node
// never lands waits for its blockhash to expire, and meanwhile the claim of
// another policy lands.
func TestPoliciesOfAPassRunConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml", "claim-withdrawals.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		drop := chainsim.Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{
			"sendTransaction": {Rates: inject.Rates{NeverLand: 1}}}}}
		if err := w.sim.Chain().SetFaults(drop); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var mu sync.Mutex
		var claimAt time.Duration
		w.sim.Chain().OnLanded(func(l chainsim.Landed) {
			mu.Lock()
			defer mu.Unlock()
			if claimAt == 0 && len(l.AccountKeys) > 0 && l.AccountKeys[0] == w.wallet() {
				claimAt = time.Since(start)
			}
		})
		_ = k.RunOnce(t.Context())
		repay := k.actionsOf(t, "auto-repay")
		claim := k.actionsOf(t, "claim-earn-withdrawals")
		if len(repay) != 1 || len(claim) != 1 || claim[0].State != "landed" || repay[0].State == "landed" {
			t.Fatalf("repay %v, claim %v; want the repay not landed and the claim landed", repay, claim)
		}
		mu.Lock()
		defer mu.Unlock()
		if elapsed := time.Since(start); claimAt == 0 || claimAt > 10*time.Second || elapsed < 30*time.Second {
			t.Errorf("claim landed after %v of a %v pass; want it within seconds while the repay waited", claimAt, elapsed)
		}
	})
}
