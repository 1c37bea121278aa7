package policies

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

var (
	earnVault = key("earn vault")
	vaultAddr = key("vault")
	strategy  = key("strategy")
)

func TestClaimWithdrawalsDecision(t *testing.T) {
	req := func(id string, requested, filled, claimed uint64, owner string) market.WithdrawalRequest {
		return market.WithdrawalRequest{RequestID: key(id), Wallet: owner, RequestedAmount: market.Amount(requested),
			FilledAmount: market.Amount(filled), ClaimedAmount: market.Amount(claimed)}
	}
	obs := observe()
	obs.Withdrawals = []market.WithdrawalQueue{{Address: earnVault, Requests: []market.WithdrawalRequest{
		req("filled", 1000, 1000, 0, wallet),
		req("partial", 1000, 500, 0, wallet),
		req("claimed", 1000, 1000, 1000, wallet),
		req("open", 1000, 0, 0, wallet),
		req("not ours", 1000, 1000, 0, key("someone")),
	}}}
	obs.EarnPositions = []market.EarnPosition{{Address: earnVault, Wallet: wallet, OpenWithdrawalRequests: []market.OpenWithdrawalRequest{
		{OnChainRequestAddr: key("filled")}, {OnChainRequestAddr: key("partial")}, {OnChainRequestAddr: key("open")},
	}}}
	p := parseOne(t, policyYAML("name: cw", "kind: claim-withdrawals", `schedule: "@every 5m"`, "select: {vaults: ["+earnVault+"]}"))
	if p.Submit.Mode != ModeBundle {
		t.Errorf("mode = %q, want bundle by default", p.Submit.Mode)
	}
	res := evaluate(t, p, obs)
	if res.Evaluated != 4 {
		t.Errorf("evaluated %d requests, want the wallet's 4", res.Evaluated)
	}
	if len(res.Actions) != 1 {
		t.Fatalf("got %d actions, want 1", len(res.Actions))
	}
	a := res.Actions[0]
	want := market.WithdrawClaimRequest{Address: earnVault, Wallet: wallet, RequestID: key("filled")}
	if a.Target != key("filled") || a.Request.WithdrawClaim == nil || *a.Request.WithdrawClaim != want {
		t.Errorf("action %s request %+v, want %+v", a.Target, a.Request.WithdrawClaim, want)
	}
	if a.Request.Endpoint() != "E10" || len(a.Bounds.MaxOutflow) != 0 || a.Bounds.MaxLamports != DefaultMaxFeeLamports+2_100_000 {
		t.Errorf("endpoint %s bounds %+v", a.Request.Endpoint(), a.Bounds)
	}
	if !strings.Contains(a.Reason, "is fully filled (1000 of 1000 base units requested, mint unknown): claim it") {
		t.Errorf("reason = %q", a.Reason)
	}
}

// TestClaimOnlyWhatThePositionLists: a filled request the withdrawal queue
// shows but the earn position does not list among its open withdrawal
// requests (or listed under another vault, or with no position read) is
// skipped with the reason, never claimed; the listed one is claimed.
func TestClaimOnlyWhatThePositionLists(t *testing.T) {
	filled := func(id string) market.WithdrawalRequest {
		return market.WithdrawalRequest{RequestID: key(id), Wallet: wallet, RequestedAmount: 1000, FilledAmount: 1000}
	}
	open := func(ids ...string) []market.OpenWithdrawalRequest {
		var out []market.OpenWithdrawalRequest
		for _, id := range ids {
			out = append(out, market.OpenWithdrawalRequest{OnChainRequestAddr: key(id)})
		}
		return out
	}
	p := parseOne(t, policyYAML("name: cw", "kind: claim-withdrawals", `schedule: "@every 5m"`, "select: {vaults: ["+earnVault+"]}"))
	cases := []struct {
		name      string
		positions []market.EarnPosition
		claimed   []string
	}{
		{"listed and unlisted", []market.EarnPosition{{Address: earnVault, OpenWithdrawalRequests: open("listed")}}, []string{key("listed")}},
		{"listed under another vault", []market.EarnPosition{{Address: key("other vault"), OpenWithdrawalRequests: open("listed", "unlisted")}}, nil},
		{"no position read", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs := observe()
			obs.Withdrawals = []market.WithdrawalQueue{{Address: earnVault, Requests: []market.WithdrawalRequest{filled("listed"), filled("unlisted")}}}
			obs.EarnPositions = tc.positions
			res := evaluate(t, p, obs)
			var claimed []string
			for _, a := range res.Actions {
				claimed = append(claimed, a.Request.WithdrawClaim.RequestID)
			}
			if !slices.Equal(claimed, tc.claimed) {
				t.Errorf("claimed %v, want %v", claimed, tc.claimed)
			}
			unlisted := slices.IndexFunc(res.Skipped, func(s Skip) bool { return s.Target == key("unlisted") })
			if unlisted < 0 {
				t.Fatalf("skipped %+v, want the unlisted request skipped", res.Skipped)
			}
			if s := res.Skipped[unlisted]; s.Reason != SkipNoData || !strings.Contains(s.Detail, "not among the earn position's open withdrawal requests") {
				t.Errorf("skip %+v, want no_data naming the earn position", s)
			}
		})
	}
}

// lendingVault is a vault of the wallet: 1500 USDC idle, 1000 deployed,
// 500 external, no outstanding interest (TVL 3000 USDC), one collateral
// with 7- and 30-day terms at 8 % and 10 %, a 25 % allocation cap, and
// originations off.
func lendingVault() market.Vault {
	return market.Vault{Address: vaultAddr, PrincipalMint: usdc, VaultStrategy: market.VaultStrategy{
		Strategy: market.StrategyState{Address: strategy, Authority: wallet, TokenBalance: 1_500_000_000,
			CurrentDeployedAmount: 1_000_000_000, ExternalYieldAmount: 500_000_000, InterestPerSecond: 1},
		CollateralTerms: []market.CollateralTerm{{AssetIdentifier: coll, MaxAllocationPct: "25",
			DurationsAndApys: map[string]market.CBPS{days(7).Key(): 80_000, days(30).Key(): 100_000}}},
	}}
}

func days(n int32) market.StrategyDuration {
	return market.StrategyDuration{DurationType: market.DurationDays, Duration: n}
}

func TestStrategyWithdrawDecision(t *testing.T) {
	tests := []struct {
		name   string
		params string
		amount uint64
	}{
		// idle 1500 − buffer 500 = 1000 USDC.
		{"sweeps idle above the buffer", "{buffer: 500000000, min_amount: 1000000000}", 1_000_000_000},
		{"below min_amount", "{buffer: 500000000, min_amount: 1000000001}", 0},
		{"buffer above idle", "{buffer: 2000000000}", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOne(t, policyYAML("name: sw", "kind: strategy-withdraw", `schedule: "@hourly"`, "params: "+tc.params))
			obs := observe()
			obs.Vaults = []market.Vault{lendingVault()}
			res := evaluate(t, p, obs)
			if tc.amount == 0 {
				if len(res.Actions) != 0 {
					t.Fatalf("unexpected action %q", res.Actions[0].Reason)
				}
				return
			}
			if len(res.Actions) != 1 {
				t.Fatalf("got %d actions, want 1", len(res.Actions))
			}
			a := res.Actions[0]
			want := market.WithdrawStrategyRequest{Amount: market.Amount(tc.amount), Strategy: strategy}
			if a.Request.WithdrawStrategy == nil || *a.Request.WithdrawStrategy != want {
				t.Errorf("request %+v, want %+v", a.Request.WithdrawStrategy, want)
			}
			wantReason := "idle 1500 USDC is above the buffer 500 USDC: withdraw 1000 USDC from strategy " + shortKey(strategy)
			if a.Reason != wantReason || a.Target != vaultAddr || len(a.Bounds.MaxOutflow) != 0 {
				t.Errorf("target %s reason %q bounds %+v", a.Target, a.Reason, a.Bounds)
			}
		})
	}
}

func TestStrategyWithdrawOnlyOwnVaults(t *testing.T) {
	p := parseOne(t, policyYAML("name: sw", "kind: strategy-withdraw", `schedule: "@hourly"`, "params: {buffer: 0}"))
	v := lendingVault()
	v.VaultStrategy.Strategy.Authority = key("someone")
	obs := observe()
	obs.Vaults = []market.Vault{v}
	if res := evaluate(t, p, obs); res.Evaluated != 0 || len(res.Actions) != 0 {
		t.Fatalf("evaluated %d, acted %d on a vault of another authority", res.Evaluated, len(res.Actions))
	}
}

func TestStrategyUpdateDecision(t *testing.T) {
	quote7 := QuoteObservation{PrincipalMint: usdc, Duration: days(7), Quote: market.Quote{CollateralIdentifier: coll, Apy: 90_000, Amount: 1}}
	tests := []struct {
		name   string
		params []string
		quotes []QuoteObservation
		want   *market.StrategyUpdateRequest
		reason string
	}{{
		// best 7-day quote 9 % − 50 bps = 8.5 % (85000 cBPS), a 50 bps move ≥ 10; no 30-day quote: kept.
		// allocation 25 → 20; utilisation 1000/3000 < 0.9 turns originations on.
		name: "follow the best quote, cap allocation, enable originations",
		params: []string{"  rules:", `    - collaterals: ["*"]`, "      follow_best_quote: {offset_bps: -50}",
			"      max_allocation_pct: 20", "  originations_enabled: vault.utilisation < 0.9"},
		quotes: []QuoteObservation{quote7},
		want: &market.StrategyUpdateRequest{Strategy: strategy,
			CollateralTerms: &market.CollateralTerms{
				UpdateCollateral:      map[string]market.CollateralParamsUpdate{coll: {ApyUpdate: map[string]string{days(7).Key(): "85000"}}},
				UpdateAssetAllocation: []market.AssetAllocation{{AssetIdentifier: coll, MaxAllocationPct: "20"}},
			},
			UpdateParams: &market.UpdateParams{OriginationsEnabled: ptr(true)}},
		reason: "update strategy " + shortKey(strategy) + " of vault " + shortKey(vaultAddr) + ": " + shortKey(coll) +
			" 7 days APY 8.00% → 8.50%; " + shortKey(coll) + " max allocation 25% → 20%; originations off → on (no quote for " + shortKey(coll) + " 30 days)",
	}, {
		// 9 % − 95 bps = 8.05 %: a 5 bps move, inside the 10 bps dead-band.
		name:   "dead-band",
		params: []string{"  rules:", `    - collaterals: ["` + coll + `"]`, "      follow_best_quote: {offset_bps: -95}"},
		quotes: []QuoteObservation{quote7},
	}, {
		// 9 % + 500 bps = 14 %, clamped to max_apy 12 %.
		name: "clamped to max_apy",
		params: []string{"  min_change_bps: 0", "  rules:", `    - collaterals: ["*"]`, `      durations: ["7 days"]`,
			"      follow_best_quote: {offset_bps: 500, max_apy: 0.12}"},
		quotes: []QuoteObservation{quote7},
		want: &market.StrategyUpdateRequest{Strategy: strategy, CollateralTerms: &market.CollateralTerms{
			UpdateCollateral: map[string]market.CollateralParamsUpdate{coll: {ApyUpdate: map[string]string{days(7).Key(): "120000"}}}}},
		reason: "update strategy " + shortKey(strategy) + " of vault " + shortKey(vaultAddr) + ": " + shortKey(coll) + " 7 days APY 8.00% → 12.00%",
	}, {
		// an expression: 30-day term set to current + 1 % = 11 %; the 7-day term (8 % + 1 % = 9 %) too.
		name:   "apy expression",
		params: []string{"  rules:", `    - collaterals: ["*"]`, "      apy: current_apy + 0.01"},
		want: &market.StrategyUpdateRequest{Strategy: strategy, CollateralTerms: &market.CollateralTerms{
			UpdateCollateral: map[string]market.CollateralParamsUpdate{coll: {ApyUpdate: map[string]string{
				days(7).Key(): "90000", days(30).Key(): "110000"}}}}},
		reason: "update strategy " + shortKey(strategy) + " of vault " + shortKey(vaultAddr) + ": " + shortKey(coll) +
			" 7 days APY 8.00% → 9.00%; " + shortKey(coll) + " 30 days APY 10.00% → 11.00%",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := []string{"name: su", "kind: strategy-update", `schedule: "@hourly"`, "params:"}
			p := parseOne(t, policyYAML(lines...)+indent(tc.params))
			obs := observe()
			obs.Vaults, obs.Quotes = []market.Vault{lendingVault()}, tc.quotes
			res := evaluate(t, p, obs)
			if tc.want == nil {
				if len(res.Actions) != 0 {
					t.Fatalf("unexpected action %q", res.Actions[0].Reason)
				}
				return
			}
			if len(res.Actions) != 1 {
				t.Fatalf("got %d actions, want 1 (skips %+v)", len(res.Actions), res.Skipped)
			}
			a := res.Actions[0]
			if !reflect.DeepEqual(a.Request.StrategyUpdate, tc.want) {
				t.Errorf("request = %s\n want %s", jsonOf(t, a.Request.StrategyUpdate), jsonOf(t, tc.want))
			}
			if a.Reason != tc.reason {
				t.Errorf("reason = %q\n want %q", a.Reason, tc.reason)
			}
		})
	}
}

func TestStrategyUpdateFailsClosed(t *testing.T) {
	p := parseOne(t, policyYAML("name: su", "kind: strategy-update", `schedule: "@hourly"`, "params:")+
		indent([]string{"  rules:", `    - collaterals: ["*"]`, "      apy: current_apy * 1000"}))
	obs := observe()
	obs.Vaults = []market.Vault{lendingVault()}
	res := evaluate(t, p, obs)
	if len(res.Actions) != 0 || !slices.Equal(reasons(res), []string{vaultAddr + ":error"}) {
		t.Fatalf("actions %d skips %+v, want one error skip", len(res.Actions), res.Skipped)
	}
	if !strings.Contains(res.Skipped[0].Detail, "is outside [0, 10]") {
		t.Errorf("detail = %q", res.Skipped[0].Detail)
	}
}

func TestAlertDecision(t *testing.T) {
	p := parseOne(t, policyYAML("name: low", "kind: alert", `schedule: "@every 1m"`, "select: {target: loans}",
		"when: loan.health < 0.1", `params: {severity: critical, message: "loan {{.loan.address}} health {{printf \"%.4f\" .loan.health}}"}`))
	res := evaluate(t, p, observe(lowLoan("a"), loan("b", 10_000, full(1_000_000_000))))
	if len(res.Actions) != 1 {
		t.Fatalf("got %d actions, want 1", len(res.Actions))
	}
	a := res.Actions[0]
	msg := "loan " + key("a") + " health 0.0625"
	if a.Alert == nil || a.Alert.Message != msg || a.Alert.Severity != SeverityCritical || a.Reason != msg {
		t.Errorf("alert = %+v reason %q, want %q", a.Alert, a.Reason, msg)
	}
	if a.Request.Body() != nil || a.Bounds.MaxLamports != 0 || !a.Notify.Has(EventAlert) {
		t.Errorf("an alert has a request %v, bounds %+v or notify %+v", a.Request.Body(), a.Bounds, a.Notify)
	}
}

func TestVaultFacts(t *testing.T) {
	p := parseOne(t, policyYAML("name: v", "kind: alert", `schedule: "@every 1m"`, "select: {target: vaults}",
		// TVL 3000e6; lending APY = (1·31,536,000 + 0)/3e9 = 0.010512; utilisation 1000/3000.
		"when: vault.tvl == 3000000000 && vault.lending_apy == 0.010512 && vault.idle == 1500000000 && strategy.terms[0].apys['7 days'] == 0.08",
		`params: {message: "{{pct .vault.utilisation}} used"}`))
	obs := observe()
	obs.Vaults = []market.Vault{lendingVault()}
	res := evaluate(t, p, obs)
	if len(res.Actions) != 1 || res.Actions[0].Reason != "33.33% used" {
		t.Fatalf("actions %+v skips %+v", res.Actions, res.Skipped)
	}
}

func ptr[T any](v T) *T { return &v }

// indent places params lines under a policy of policyYAML.
func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// TestUnpricedRewardsAreUnknownNotZero: the vault's reward schedule runs
// and its reward mint has no price. A `when` over total_apy or rewards_apy
// is not evaluated (no_data, naming the mint and the runtime's reason), so
// a floor alert does not fire on a zero that means "unknown"; a `when`
// over facts that need no price still fires.
func TestUnpricedRewardsAreUnknownNotZero(t *testing.T) {
	reward := key("reward mint")
	v := lendingVault()
	v.VaultRewardsSchedule = []market.RewardSchedule{{RewardMint: reward, EmissionsPerSecond: 1e12,
		RewardStartTime: market.UnixTimeOf(t0.Add(-time.Hour)), RewardEndTime: market.UnixTimeOf(t0.Add(time.Hour))}}
	obs := observe()
	obs.Vaults = []market.Vault{v}
	obs.Tokens = map[string]Token{usdc: {Symbol: "USDC", Decimals: 6, PriceUSD: 1}}
	obs.Unpriced = map[string]string{reward: "stale: published 3m ago"}
	for _, when := range []string{"vault.total_apy < 0.05", "vault.rewards_apy == 0 || vault.tvl > 0"} {
		p := parseOne(t, policyYAML("name: floor", "kind: alert", `schedule: "@every 1m"`, "select: {target: vaults}",
			"when: "+when, `params: {message: "low"}`))
		res := evaluate(t, p, obs)
		if len(res.Actions) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != SkipNoData ||
			!strings.Contains(res.Skipped[0].Detail, "is unknown: no price for the reward mint "+reward+": stale") {
			t.Errorf("when %s: actions %+v, skips %+v; want a no_data skip naming the reward mint", when, res.Actions, res.Skipped)
		}
	}
	p := parseOne(t, policyYAML("name: big", "kind: alert", `schedule: "@every 1m"`, "select: {target: vaults}",
		"when: vault.tvl > 1000000000", `params: {message: "big"}`))
	if res := evaluate(t, p, obs); len(res.Actions) != 1 {
		t.Errorf("a when over the TVL alone: actions %+v, skips %+v; want it to fire", res.Actions, res.Skipped)
	}
}

// TestUnparseableAllocationIsUnknownNotZero: a term whose maxAllocationPct
// is not a percentage does not become the fact 0; a `when` over it is not
// evaluated (no_data, naming the term), and one over other facts still is.
func TestUnparseableAllocationIsUnknownNotZero(t *testing.T) {
	for _, raw := range []string{"abc", "NaN", "-5", ""} {
		v := lendingVault()
		v.VaultStrategy.CollateralTerms[0].MaxAllocationPct = raw
		obs := observe()
		obs.Vaults = []market.Vault{v}
		p := parseOne(t, policyYAML("name: cap", "kind: alert", `schedule: "@every 1m"`, "select: {target: vaults}",
			"when: strategy.terms[0].max_allocation_pct < 10", `params: {message: "cap low"}`))
		res := evaluate(t, p, obs)
		if len(res.Actions) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != SkipNoData ||
			!strings.Contains(res.Skipped[0].Detail, "max_allocation_pct is unknown: the term of collateral "+coll) {
			t.Errorf("maxAllocationPct %q: actions %+v, skips %+v; want a no_data skip naming the term", raw, res.Actions, res.Skipped)
		}
		p = parseOne(t, policyYAML("name: big", "kind: alert", `schedule: "@every 1m"`, "select: {target: vaults}",
			"when: vault.tvl > 1000000000", `params: {message: "big"}`))
		if res := evaluate(t, p, obs); len(res.Actions) != 1 {
			t.Errorf("maxAllocationPct %q, a when over the TVL alone: actions %+v, skips %+v; want it to fire", raw, res.Actions, res.Skipped)
		}
	}
}
