package keeper

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// apyProbe is an alert on alpha-vault that always fires and prints its
// rewards and total APY in full precision.
const apyProbe = `policies:
  - name: apy-probe
    kind: alert
    schedule: "@every 5s"
    select: { target: vaults, vaults: [%s] }
    when: vault.total_apy >= 0
    params: { severity: info, message: "{{.vault.rewards_apy}} {{.vault.total_apy}}" }
`

// probeAPY plans the probe and returns alpha-vault's rewards and total APY,
// or the reason the alert was skipped.
func probeAPY(t *testing.T, k *simKeeper) (rewards, total float64, skipped string) {
	t.Helper()
	plans, err := k.Plan(t.Context())
	if err != nil || len(plans) != 1 || plans[0].Err != "" {
		t.Fatalf("plan: %+v, %v", plans, err)
	}
	p := plans[0]
	if len(p.Skipped) > 0 {
		return 0, 0, string(p.Skipped[0].Reason) + ": " + p.Skipped[0].Detail
	}
	if len(p.Actions) != 1 {
		t.Fatalf("the probe planned %d alerts", len(p.Actions))
	}
	f := strings.Fields(p.Actions[0].Alert.Message)
	rewards, _ = strconv.ParseFloat(f[0], 64)
	total, _ = strconv.ParseFloat(f[1], 64)
	return rewards, total, ""
}

// TestRewardsAPYFromPythPriceOnSim: with JTO's price read from its Pyth
// account (2.5 USD), alpha-vault's rewards APY is the Metric rule's
// (emissionsPerSecond / 1e9) · SECONDS_PER_YEAR · price / vaultTvl, price in
// principal smallest units per reward smallest unit, and its total APY
// (about 7.8 %) is above the example's 5 % floor, which therefore does not
// fire while the rewards run.
func TestRewardsAPYFromPythPriceOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		vault := w.address(t, ids.KindVault, "alpha-vault")
		w.writePolicy(t, "probe.yaml", strings.Replace(apyProbe, "%s", vault.String(), 1))
		k := w.open(t, "")
		w.advance(t, 5*time.Second)
		rewards, total, skipped := probeAPY(t, k)
		if skipped != "" {
			t.Fatalf("the probe was skipped: %s", skipped)
		}
		st, err := w.sim.Accounts().Strategy(w.address(t, ids.KindStrategy, "alpha"))
		if err != nil {
			t.Fatal(err)
		}
		tvl := market.VaultTVL(asClient[market.VaultStrategy](t, st).Strategy)
		perUnit := (2.5 / 1e9) / (1.0 / 1e6) // USDC smallest units per JTO smallest unit
		want := 57870370370370.0 / 1e9 * market.SecondsPerYear * perUnit / tvl
		if d := rewards/want - 1; d > 1e-9 || d < -1e-9 {
			t.Errorf("rewards APY %.12f, want %.12f by the Metric rule", rewards, want)
		}
		if total < 0.05 {
			t.Errorf("total APY %.4f, under the 5 %% floor while the rewards run", total)
		}
		w.usePolicies(t, "alerts.yaml")
		plans, err := k.Plan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range plans {
			for _, a := range p.Actions {
				if p.Policy == "vault-apy-floor" && a.Target == vault.String() {
					t.Errorf("vault-apy-floor fires on alpha-vault at a total APY of %.4f: %s", total, a.Reason)
				}
			}
		}
	})
}

// staleJTO is the default scenario with alpha-vault's JTO rewards running
// for an hour and JTO's Pyth feed halted at 10 s, then resumed at 5 min.
func staleJTO(t *testing.T) *scenario.Scenario {
	t.Helper()
	text := string(sim.DefaultScenarioYAML())
	if !strings.Contains(text, `end: "30s"`) {
		t.Fatal("the default scenario changed: alpha-vault's JTO rewards no longer end at 30s")
	}
	text = strings.Replace(text, `end: "30s"`, `end: "1h"`, 1) + `  - at: 10s
    pyth: {halt: [JTO]}
  - at: 5m
    pyth: {resume: [JTO]}
`
	sc, err := sim.ParseScenario("stale_jto.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestStalePriceMakesAPYUnknownOnSim: once JTO's feed has not been pushed
// for longer than prices.max_age (2 minutes by the chain's clock),
// alpha-vault's total APY is unknown, not zero: the probe's `when` is not
// evaluated, plan says which price is missing and why, and a metric counts
// it. When the feed is pushed again the APY is back.
func TestStalePriceMakesAPYUnknownOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: staleJTO(t)})
		vault := w.address(t, ids.KindVault, "alpha-vault")
		w.writePolicy(t, "probe.yaml", strings.Replace(apyProbe, "%s", vault.String(), 1))
		k := w.open(t, "")
		w.advance(t, 90*time.Second)
		if _, _, skipped := probeAPY(t, k); skipped != "" {
			t.Fatalf("80 s after the halt (under max_age): skipped: %s", skipped)
		}
		w.advance(t, time.Minute)
		_, _, skipped := probeAPY(t, k)
		for _, want := range []string{"no_data", "vault.total_apy is unknown", "reward mint JTO", "stale"} {
			if !strings.Contains(skipped, want) {
				t.Errorf("140 s after the halt: skipped %q, want it to say %q", skipped, want)
			}
		}
		if n := testutil.ToFloat64(k.metrics.PricesUnknown.WithLabelValues("stale")); n < 1 {
			t.Errorf("keeper_prices_unknown_total{reason=stale} = %v", n)
		}
		w.advance(t, 3*time.Minute)
		if rewards, _, skipped := probeAPY(t, k); skipped != "" || rewards <= 0 {
			t.Errorf("after the feed resumed: rewards APY %v, skipped %q", rewards, skipped)
		}
	})
}
