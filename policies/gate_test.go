package policies

import (
	"slices"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// lowLoan is a loan at health 0.0625 that a 0.1/0.25 policy repays by 1500 USDC.
func lowLoan(label string) market.LoanItem { return loan(label, 10_000, full(7_500_000_000)) }

func TestGates(t *testing.T) {
	const params = "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}"
	a, b := key("a"), key("b")
	if b < a {
		a, b = b, a // a is the first target in key order
	}
	tests := []struct {
		name    string
		params  string
		extra   []string
		hist    History
		state   *State
		obsTime time.Time
		amounts []uint64 // of the planned actions, in order
		skips   []string
	}{{
		name:    "both act, ordered by target key",
		amounts: []uint64{1_500_000_000, 1_500_000_000},
	}, {
		name:    "in flight",
		hist:    History{Targets: map[string]TargetHistory{a: {InFlight: true}}},
		amounts: []uint64{1_500_000_000},
		skips:   []string{a + ":in_flight"},
	}, {
		name:    "in flight second",
		hist:    History{Targets: map[string]TargetHistory{b: {InFlight: true}}},
		amounts: []uint64{1_500_000_000},
		skips:   []string{b + ":in_flight"},
	}, {
		name:    "within the default cooldown of 10m",
		hist:    History{Targets: map[string]TargetHistory{a: {LastAction: t0.Add(-9 * time.Minute)}}},
		amounts: []uint64{1_500_000_000},
		skips:   []string{a + ":cooldown"},
	}, {
		name:    "cooldown over",
		hist:    History{Targets: map[string]TargetHistory{a: {LastAction: t0.Add(-10 * time.Minute)}}},
		amounts: []uint64{1_500_000_000, 1_500_000_000},
	}, {
		name:    "per-run cap counts earlier actions of the run",
		extra:   []string{"limits: {max_actions_per_run: 2}"},
		hist:    History{ActionsThisRun: 1},
		amounts: []uint64{1_500_000_000},
		skips:   []string{b + ":run_cap"},
	}, {
		// cap 2000 USDC, 100 spent: the first takes 1500, the second is cut to the 400 left.
		name:    "daily cap cuts the second repayment",
		extra:   []string{"limits: {daily_caps: {" + usdc + ": 2000000000}}"},
		hist:    History{SpentToday: map[string]uint64{usdc: 100_000_000}},
		amounts: []uint64{1_500_000_000, 400_000_000},
	}, {
		name:    "daily cap leaves less than min_amount",
		params:  "{trigger_health: 0.1, target_health: 0.25, min_amount: 200000000, max_amount: 5000000000}",
		extra:   []string{"limits: {daily_caps: {" + usdc + ": 2000000000}}"},
		hist:    History{SpentToday: map[string]uint64{usdc: 1_900_000_000}},
		amounts: nil,
		skips:   []string{a + ":daily_cap", b + ":daily_cap"},
	}, {
		name:    "daily cap spent",
		extra:   []string{"limits: {daily_caps: {" + usdc + ": 2000000000}}"},
		hist:    History{SpentToday: map[string]uint64{usdc: 2_000_000_000}},
		amounts: nil,
		skips:   []string{a + ":daily_cap", b + ":daily_cap"},
	}, {
		// each action may cost max_fee_lamports 100000: 250000 − 60000 spent leaves room for one.
		name:    "daily fee cap",
		extra:   []string{"limits: {daily_fee_lamports: 250000}"},
		hist:    History{FeesToday: 60_000},
		amounts: []uint64{1_500_000_000},
		skips:   []string{b + ":fee_cap"},
	}, {
		name:    "stale snapshot",
		obsTime: t0.Add(-6 * time.Minute),
		skips:   []string{":stale"},
	}, {
		name:    "max_data_age",
		extra:   []string{"max_data_age: 10m"},
		obsTime: t0.Add(-6 * time.Minute),
		amounts: []uint64{1_500_000_000, 1_500_000_000},
	}, {
		name:  "disabled",
		extra: []string{"enabled: false"},
		skips: []string{":disabled"},
	}, {
		name:    "for not yet held",
		extra:   []string{"for: 5m"},
		state:   &State{PendingSince: map[string]time.Time{a: t0.Add(-5 * time.Minute), b: t0.Add(-4 * time.Minute)}},
		amounts: []uint64{1_500_000_000},
		skips:   []string{b + ":for"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := params
			if tc.params != "" {
				ps = tc.params
			}
			lines := append([]string{"name: repay", "kind: repay", `schedule: "@every 1m"`, "params: " + ps}, tc.extra...)
			p := parseOne(t, policyYAML(lines...))
			obs := observe(lowLoan("b"), lowLoan("a"))
			if !tc.obsTime.IsZero() {
				obs.SnapshotTime = tc.obsTime
			}
			state := tc.state
			if state == nil {
				state = &State{}
			}
			res, err := Evaluate(p, obs, t0, tc.hist, state)
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			var targets []string
			for _, a := range res.Actions {
				got = append(got, a.Bounds.MaxOutflow[usdc])
				targets = append(targets, a.Target)
			}
			if !slices.Equal(got, tc.amounts) {
				t.Errorf("amounts = %v, want %v", got, tc.amounts)
			}
			if !slices.IsSorted(targets) {
				t.Errorf("targets not in key order: %v", targets)
			}
			if r := reasons(res); !slices.Equal(r, tc.skips) {
				t.Errorf("skips = %v, want %v (%+v)", r, tc.skips, res.Skipped)
			}
		})
	}
}

// TestForAcrossRuns follows one target through three runs of a policy
// with for: 2m, one minute apart, then a recovery that resets the timer.
func TestForAcrossRuns(t *testing.T) {
	p := parseOne(t, policyYAML("name: repay", "kind: repay", `schedule: "@every 1m"`, "for: 2m",
		"params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}"))
	a := key("a")
	state := &State{}
	steps := []struct {
		at      time.Duration
		loan    market.LoanItem
		actions int
		since   time.Time // zero: not pending
	}{
		{0, lowLoan("a"), 0, t0},
		{time.Minute, lowLoan("a"), 0, t0},
		{2 * time.Minute, lowLoan("a"), 1, t0},
		{3 * time.Minute, loan("a", 10_000, full(1_000_000_000)), 0, time.Time{}},
		{4 * time.Minute, lowLoan("a"), 0, t0.Add(4 * time.Minute)},
	}
	for i, s := range steps {
		now := t0.Add(s.at)
		obs := observe(s.loan)
		obs.SnapshotTime = now
		res, err := Evaluate(p, obs, now, History{}, state)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Actions) != s.actions {
			t.Errorf("step %d: %d actions, want %d (skips %+v)", i, len(res.Actions), s.actions, res.Skipped)
		}
		if got := state.PendingSince[a]; !got.Equal(s.since) {
			t.Errorf("step %d: pending since %v, want %v", i, got, s.since)
		}
	}
}

// TestStaleKeepsState checks that a stale snapshot neither acts nor
// forgets the for timers.
func TestStaleKeepsState(t *testing.T) {
	p := parseOne(t, policyYAML("name: repay", "kind: repay", `schedule: "@every 1m"`, "for: 2m",
		"params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}"))
	since := t0.Add(-time.Minute)
	state := &State{PendingSince: map[string]time.Time{key("a"): since}}
	obs := observe(lowLoan("a"))
	obs.SnapshotTime = t0.Add(-time.Hour)
	res, err := Evaluate(p, obs, t0, History{}, state)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Actions) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != SkipStale {
		t.Fatalf("result = %+v, want one stale skip", res)
	}
	if want := "snapshot is 1h0m0s old, more than max_data_age 5m0s"; res.Skipped[0].Detail != want {
		t.Errorf("detail = %q, want %q", res.Skipped[0].Detail, want)
	}
	if got := state.PendingSince[key("a")]; !got.Equal(since) {
		t.Errorf("pending since = %v, want %v kept", got, since)
	}
}

func TestActionID(t *testing.T) {
	p := repayPolicy(t, "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}")
	id := func(items ...market.LoanItem) string {
		res := evaluate(t, p, observe(items...))
		if len(res.Actions) != 1 {
			t.Fatalf("got %d actions, want 1", len(res.Actions))
		}
		return res.Actions[0].ID
	}
	first := id(lowLoan("a"))
	if len(first) != 64 {
		t.Fatalf("id %q is not 64 hex digits", first)
	}
	if again := id(lowLoan("a")); again != first {
		t.Errorf("same inputs gave ids %s and %s", first, again)
	}
	changed := lowLoan("a")
	changed.Ledgers[0].PrincipalDue = 7_600_000_000
	if other := id(changed); other == first {
		t.Error("a different debt gave the same id")
	}
	touched := lowLoan("a")
	touched.Loan.WriteVersion++
	if other := id(touched); other == first {
		t.Error("a new loan write version gave the same id")
	}
	other := parseOne(t, policyYAML("name: repay-2", "kind: repay", `schedule: "@every 1m"`,
		"params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}"))
	res := evaluate(t, other, observe(lowLoan("a")))
	if res.Actions[0].ID == first {
		t.Error("another policy gave the same id")
	}
}

func TestSelection(t *testing.T) {
	const params = "params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}"
	foreign := lowLoan("foreign")
	foreign.Loan.Borrower = key("someone")
	closed := lowLoan("closed")
	closed.Loan.Closed = true
	tests := []struct {
		name    string
		sel     string
		targets []string
	}{
		{"the wallet's active loans by default", "", []string{key("a"), key("b")}},
		{"by loan address", "select: {loans: [" + key("b") + "]}", []string{key("b")}},
		{"by borrower", "select: {borrowers: [" + key("someone") + "]}", []string{key("foreign")}},
		{"by principal mint", "select: {principal_mints: [" + sol + "]}", nil},
		{"by collateral identifier", "select: {collateral_identifiers: [" + coll + "]}", []string{key("a"), key("b")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := []string{"name: repay", "kind: repay", `schedule: "@every 1m"`, params}
			if tc.sel != "" {
				lines = append(lines, tc.sel)
			}
			p := parseOne(t, policyYAML(lines...))
			res := evaluate(t, p, observe(lowLoan("b"), foreign, closed, lowLoan("a")))
			var got []string
			for _, a := range res.Actions {
				got = append(got, a.Target)
			}
			want := slices.Clone(tc.targets)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("targets = %v, want %v", got, want)
			}
		})
	}
}

func TestEvaluateRefusesUncheckedPolicies(t *testing.T) {
	if _, err := Evaluate(&Policy{Name: "x", Kind: KindRepay, Enabled: true}, observe(), t0, History{}, nil); err == nil ||
		err.Error() != `policies: evaluate: policy "x" was not loaded by Parse` {
		t.Errorf("error = %v", err)
	}
	if _, err := Evaluate(nil, observe(), t0, History{}, nil); err == nil {
		t.Error("nil policy accepted")
	}
}

// TestCapSkipsSayAmountsInTokens: a skip at a cap writes its amounts as
// every amount is written (whole tokens, SOL for fees), not base units.
func TestCapSkipsSayAmountsInTokens(t *testing.T) {
	tests := []struct {
		name, params, limits string
		hist                 History
		want                 string
	}{{
		name:   "daily cap",
		params: "{trigger_health: 0.1, target_health: 0.25, min_amount: 200000000, max_amount: 5000000000}",
		limits: "limits: {daily_caps: {" + usdc + ": 2000000000}}",
		hist:   History{SpentToday: map[string]uint64{usdc: 1_900_000_000}},
		want:   "needs 1500 USDC but the daily cap leaves 100 USDC",
	}, {
		name:   "fee cap",
		params: "{trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}",
		limits: "limits: {daily_fee_lamports: 250000}",
		hist:   History{FeesToday: 60_000},
		want:   "fees up to 0.0001 SOL would pass the daily fee cap 0.00025 SOL (daily_fee_lamports 250000; 0.00016 SOL spent)",
	}}
	for _, tc := range tests {
		p := parseOne(t, policyYAML("name: repay", "kind: repay", `schedule: "@every 1m"`, "params: "+tc.params, tc.limits))
		res, err := Evaluate(p, observe(lowLoan("b"), lowLoan("a")), t0, tc.hist, &State{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Skipped) == 0 || res.Skipped[len(res.Skipped)-1].Detail != tc.want {
			t.Errorf("%s: skips %+v, want the last saying %q", tc.name, res.Skipped, tc.want)
		}
	}
}
