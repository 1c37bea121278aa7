package keeper

import (
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// claimEverySecond claims pos-b's fees once 10 USDC are owed, without the
// default cooldown: nothing but what it reads keeps it from claiming again.
const claimEverySecond = `policies:
  - name: claim-no-cooldown
    kind: claim-fees
    schedule: "@every 1s"
    params: { min_fees_1: 10000000 }
    limits: { cooldown: 0s }
`

// laggingClaimWorld is the simulator with its account reads served by a node
// 10 slots (4 s) behind the cluster, and claimEverySecond as the policy.
func laggingClaimWorld(t *testing.T) *simWorld {
	t.Helper()
	lagging := inject.MethodFaults{LagSlots: 10}
	w := newSimWorld(t, simOptions{faults: faults.Faults{Chain: chainsim.Faults{RPC: inject.ServiceFaults{
		Methods: map[string]inject.MethodFaults{"getMultipleAccounts": lagging, "getAccountInfo": lagging},
	}}}})
	w.writePolicy(t, "claim.yaml", claimEverySecond)
	return w
}

// TestClaimOnceBehindALaggingNode: the RPC node serving account reads lags
// 10 slots (4 s) behind the cluster, as a node behind a load balancer can.
// keeper claims pos-b's fees; for the next 4 s the lagging node still shows
// the position as it was before the claim, owing the 17 USDC just paid out.
// keeper must not decide on that state: its reads carry the slot its claim
// landed in as minContextSlot, the node refuses them until it has caught
// up, so each plan of those seconds either fails naming the slot or sees
// the claim done; never one planning the same claim again. (The claim
// itself would not be sent twice even then: its action ID is derived from
// the same request, and the journal has it landed.)
func TestClaimOnceBehindALaggingNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := laggingClaimWorld(t)
		k := w.open(t, "")
		w.advance(t, 26*time.Second) // the swaps that earn pos-b 15 USDC of fees at 25 s
		w.advance(t, 6*time.Second)  // and the lagging node's view (4 s old) is past them
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if acts := k.actionsOf(t, "claim-no-cooldown"); len(acts) != 1 || acts[0].State != journal.StateLanded {
			t.Fatalf("first run: actions %+v, want one landed claim", acts)
		}
		for i := range 10 {
			w.advance(t, time.Second)
			plans, err := k.Plan(t.Context())
			if err == nil && len(plans) == 1 && len(plans[0].Actions) > 0 {
				t.Fatalf("%d s after the claim landed: plan decides %q on the lagging node's state from before it", i+1, plans[0].Actions[0].Reason)
			}
			_ = k.RunOnce(t.Context()) // a run whose reads the lagging node refuses fails; the next one tries again
		}
		acts := k.actionsOf(t, "claim-no-cooldown")
		if len(acts) != 1 {
			t.Fatalf("%d claims of pos-b's fees (%+v); want one: a claim was decided on the lagging node's state from before the first landed", len(acts), acts)
		}
	})
}

// TestRestartedProcessReadsNoOlderThanItsLastLanding: the same lagging node,
// and a cron-like deployment where each pass is a new process on the same
// journal. The pass after the one that claimed pos-b's fees starts a second
// later knowing nothing of slots; its recovery asks the chain where the
// journal's last landed action landed, so its first plan does not decide the
// same claim again on the node's state from before it.
func TestRestartedProcessReadsNoOlderThanItsLastLanding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := laggingClaimWorld(t)
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
		w.advance(t, 26*time.Second)
		w.advance(t, 6*time.Second)
		first := w.open(t, dsn)
		if err := first.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if acts := first.actionsOf(t, "claim-no-cooldown"); len(acts) != 1 || acts[0].State != journal.StateLanded {
			t.Fatalf("first pass: actions %+v, want one landed claim", acts)
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		w.advance(t, time.Second)
		next := w.open(t, dsn)
		if err := next.Recover(t.Context()); err != nil {
			t.Fatal(err)
		}
		plans, err := next.Plan(t.Context())
		if err == nil && len(plans) == 1 && len(plans[0].Actions) > 0 {
			t.Fatalf("the next process plans %q on the lagging node's state from before the claim", plans[0].Actions[0].Reason)
		}
	})
}
