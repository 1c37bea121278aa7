package policies

import (
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

// loopObs is a loop of the lending vault's principal (USDC) and its
// collateral: 4.6 % weighted APY, 9 % max.
func loopObs() LoopObservation {
	maxAPY := market.Number(0.09)
	return LoopObservation{PrincipalMint: usdc, CollateralMint: coll, Loop: market.Loop{Identifier: "usdc-coll",
		CollateralDeposited: 1200, WAvgApy: 0.046, MaxApy: &maxAPY}}
}

// TestStrategyUpdateFollowsTheLoop sets a term's APY from the loop of the
// vault's principal and the term's collateral, and leaves the terms of a
// collateral without a loop alone.
func TestStrategyUpdateFollowsTheLoop(t *testing.T) {
	p := parseOne(t, policyYAML("name: su", "kind: strategy-update", `schedule: "@hourly"`, "params:")+
		indent([]string{"  rules:", `    - collaterals: ["*"]`, `      durations: ["30 days"]`,
			"      apy: 'has_loop ? loop.w_avg_apy - 0.006 : current_apy'"}))
	if r := p.Reads(wallet); !r.Loops || !r.Vaults {
		t.Fatalf("reads %+v: the rule reads loops", r)
	}
	obs := observe()
	obs.Vaults = []market.Vault{lendingVault()}
	obs.Loops = []LoopObservation{loopObs()}
	res := evaluate(t, p, obs)
	if len(res.Actions) != 1 {
		t.Fatalf("actions %d skips %+v, want one update", len(res.Actions), res.Skipped)
	}
	// 4.6 % − 0.6 % = 4 %: 40000 cBPS, from 10 %.
	got := res.Actions[0].Request.StrategyUpdate.CollateralTerms.UpdateCollateral[coll].ApyUpdate
	if len(got) != 1 || got[days(30).Key()] != "40000" {
		t.Errorf("apy updates %v, want the 30-day term at 40000", got)
	}
	obs = observe()
	obs.Vaults = []market.Vault{lendingVault()}
	if res := evaluate(t, p, obs); len(res.Actions) != 0 {
		t.Errorf("without a loop the rule keeps the current APY, got %d actions", len(res.Actions))
	}
}

// TestAlertOnLoops fires when a loop of the vault's principal pays more
// than the vault, and says whether maxApy is representative: the vault
// holds idle principal, so it is, until the idle runs out.
func TestAlertOnLoops(t *testing.T) {
	p := parseOne(t, policyYAML("name: loopy", "kind: alert", `schedule: "@every 1m"`, "select: {target: vaults}",
		"when: any(loops, .w_avg_apy > vault.lending_apy && .max_apy_representative)",
		`params: {severity: warning, message: "a loop of {{.vault.principal_mint}} pays more than the vault"}`))
	if !p.Reads(wallet).Loops {
		t.Fatal("the alert reads loops, but its reads do not ask for them")
	}
	obs := observe()
	obs.Vaults = []market.Vault{lendingVault()}
	obs.Loops = []LoopObservation{loopObs()}
	res := evaluate(t, p, obs)
	if len(res.Actions) != 1 || !strings.Contains(res.Actions[0].Alert.Message, "a loop of "+usdc) {
		t.Fatalf("actions %+v skips %+v, want one alert", res.Actions, res.Skipped)
	}
	v := lendingVault()
	v.VaultStrategy.Strategy.TokenBalance = 0
	obs = observe()
	obs.Vaults = []market.Vault{v}
	obs.Loops = []LoopObservation{loopObs()}
	if res := evaluate(t, p, obs); len(res.Actions) != 0 {
		t.Errorf("maxApy with no borrow liquidity counted as representative: %d alerts", len(res.Actions))
	}
}

// TestVaultViews lists each vault with the loops of its principal.
func TestVaultViews(t *testing.T) {
	other := loopObs()
	other.PrincipalMint, other.Loop.Identifier, other.Loop.MaxApy = key("other"), "other", nil
	obs := observe()
	obs.Vaults = []market.Vault{lendingVault()}
	obs.Loops = []LoopObservation{loopObs(), other}
	views := obs.VaultViews(t0)
	if len(views) != 1 || len(views[0].Loops) != 1 {
		t.Fatalf("views %+v, want the one vault with its one loop", views)
	}
	l := views[0].Loops[0]
	if l.Identifier != "usdc-coll" || !l.HasMaxAPY || l.MaxAPY != 0.09 || !l.MaxAPYRepresentative || l.BorrowLiquidity != 1_500_000_000 {
		t.Errorf("loop facts %+v", l)
	}
	if got := deriveLoops(obs); len(got) != 2 || got[0].HasMaxAPY == got[1].HasMaxAPY {
		t.Errorf("derived %+v, want both loops, one without maxApy", got)
	}
}
