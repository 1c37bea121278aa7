package keeper

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// claimByValue claims pos-b's fees once they are worth 20 USD.
const claimByValue = `policies:
  - name: claim-by-value
    kind: claim-fees
    schedule: "@every 5s"
    params: { min_value_usd: 20 }
    limits: { cooldown: 10m }
`

// TestClaimFeesByValueOnSim: pos-b, never touched while its fees accrue, is
// owed 0.06 SOL and 7 USDC at 12 s (13.60 USD with SOL at 110 on its Pyth
// feed: under the 20 USD minimum, nothing is claimed) and 0.16 SOL and 17
// USDC at 27 s (34.60 USD, far above the claim's cost): claimed, and the
// reason shows the numbers.
func TestClaimFeesByValueOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.writePolicy(t, "claim.yaml", claimByValue)
		k := w.open(t, "")
		w.advance(t, 12*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if acts := k.actionsOf(t, "claim-by-value"); len(acts) != 0 {
			t.Fatalf("at 13.60 USD owed: %d claims, want none under the 20 USD minimum", len(acts))
		}
		w.advance(t, 15*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		acts := k.actionsOf(t, "claim-by-value")
		if len(acts) != 1 || acts[0].State != journal.StateLanded || acts[0].Target != w.address(t, ids.KindPosition, "pos-b").String() {
			t.Fatalf("at 34.60 USD owed: actions %+v, want pos-b's claim landed", acts)
		}
		// The claim's cost: 100,000 lamports of fee and 4,100,000 of rent at 110 USD per SOL.
		want := "fees owed 0.16 SOL + 17 USDC = 34.60 USD ≥ min_value_usd 20.00 and > the claim's cost of at most 0.0042 SOL = 0.46 USD: claim fees of position HFmz…aSaS"
		if acts[0].Reason != want {
			t.Errorf("reason %q, want %q", acts[0].Reason, want)
		}
	})
}

// TestClaimFeesByValueNeedsSOLPrice: without a price for SOL the claim's
// cost, and the value of SOL fees, are unknown: plan says so and nothing is
// claimed, however much is owed.
func TestClaimFeesByValueNeedsSOLPrice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := strings.Replace(simConfigYAML, "    So11111111111111111111111111111111111111112: { pyth: ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d }\n", "", 1)
		if cfg == simConfigYAML {
			t.Fatal("the test config no longer prices SOL where this test expects it")
		}
		w := newSimWorld(t, simOptions{configYAML: cfg})
		w.writePolicy(t, "claim.yaml", claimByValue)
		k := w.open(t, "")
		w.advance(t, 27*time.Second)
		plans, err := k.Plan(t.Context())
		if err != nil || len(plans) != 1 {
			t.Fatalf("plan: %+v, %v", plans, err)
		}
		p := plans[0]
		if len(p.Actions) != 0 || len(p.Skipped) == 0 || !strings.Contains(p.Skipped[0].Detail, "no price for SOL") ||
			!strings.Contains(p.Skipped[0].Detail, "no price source is configured") {
			t.Errorf("actions %+v, skipped %+v; want pos-b skipped for want of SOL's price", p.Actions, p.Skipped)
		}
	})
}
