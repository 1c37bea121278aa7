package keeper

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/policies"
)

// TestClaimFeesOwedNotStored shows why claim-fees reads the fees owed from
// the pool and tick arrays: at 25s pos-b stores 2 USDC (the account was not
// touched since it opened) but is owed 17 USDC, above the policy's 10 USDC
// minimum. The reader keeper used before, which took the stored figure as
// the fees owed, decides there is nothing to claim; the reader that
// computes them as the program does claims.
func TestClaimFeesOwedNotStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "claim-fees.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		p := k.policyNamed(t, "claim-fees-dex-b")
		obs, err := k.obs.observe(t.Context(), p, sieving{})
		if err != nil {
			t.Fatal(err)
		}
		mint := w.address(t, ids.KindPosition, "pos-b").String()
		stored := &policies.Observation{Wallet: obs.Wallet, SnapshotTime: obs.SnapshotTime, Loans: obs.Loans, Tokens: obs.Tokens}
		found := false
		for _, po := range obs.Positions {
			if po.State.Request.PositionMint.String() == mint {
				found = true
				if po.State.Position.FeesOwed1 != 2_000_000 || po.State.Owed.Fees1 != 17_000_000 {
					t.Fatalf("pos-b stores %d and is owed %d USDC units; the scenario should give 2 and 17 USDC",
						po.State.Position.FeesOwed1, po.State.Owed.Fees1)
				}
			}
			// The old reader: what the position account stores is what is owed.
			po.State.Owed.Fees0, po.State.Owed.Fees1 = po.State.Position.FeesOwed()
			stored.Positions = append(stored.Positions, po)
		}
		if !found {
			t.Fatal("pos-b not observed")
		}
		decide := func(o *policies.Observation) []policies.Action {
			res, err := policies.Evaluate(p, o, k.now(), policies.History{}, &policies.State{})
			if err != nil {
				t.Fatal(err)
			}
			return res.Actions
		}
		if acts := decide(stored); len(acts) != 0 {
			t.Errorf("stored figure: %d actions (%v), want nothing to claim", len(acts), acts[0].Reason)
		}
		acts := decide(obs)
		if len(acts) != 1 || acts[0].Target != mint || acts[0].Request.ClaimFees == nil {
			t.Fatalf("owed figure: actions %+v, want one claim of pos-b", acts)
		}
		if want := "fees owed 17"; !strings.Contains(acts[0].Reason, want) {
			t.Errorf("reason %q, want it to say %q", acts[0].Reason, want)
		}
	})
}
