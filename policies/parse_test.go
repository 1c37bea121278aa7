package policies

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBadFiles checks every error of every testdata/*.bad.yaml: text,
// position and policy, in order.
func TestBadFiles(t *testing.T) {
	want := map[string][]string{
		"duplicate.bad.yaml": {
			"duplicate.bad.yaml:6:11: policy \"repay\": duplicate policy name (first defined at duplicate.bad.yaml:2:11)",
		},
		"empty.bad.yaml": {
			"empty.bad.yaml: file is empty: expected a YAML document",
		},
		"expr.bad.yaml": {
			"expr.bad.yaml:5:16: policy \"typo\": when: LoanFacts has no field \"helth\" (did you mean \"health\"?)",
			"expr.bad.yaml:11:12: policy \"not-bool\": when: expected bool, but got float64",
			"expr.bad.yaml:19:31: policy \"syntax\": when: unexpected token EOF",
			"expr.bad.yaml:25:11: policy \"clock\": when: int64 is not callable",
			"expr.bad.yaml:32:39: policy \"template\": params.message: at <.loan.helth>: map has no entry for key \"helth\"",
			"expr.bad.yaml:36:12: policy \"unknown-name\": when: unknown name \"positon\" (did you mean \"position\"?)",
			"expr.bad.yaml:44:16: policy \"rule-apy\": params.rules[0].apy: expected float64, but got bool",
			"expr.bad.yaml:45:30: policy \"rule-apy\": params.originations_enabled: expected bool, but got float64",
		},
		"schedule.bad.yaml": {
			`schedule.bad.yaml:4:15: policy "zero": schedule "@every 0s": the interval must be at least 1s, got 0s`,
			`schedule.bad.yaml:10:15: policy "negative": schedule "@every -5s": the interval must be at least 1s, got -5s`,
			`schedule.bad.yaml:16:15: policy "sub-second": schedule "@every 500ms": the interval must be at least 1s, got 500ms`,
		},
		"triggers.bad.yaml": {
			`triggers.bad.yaml:9:17: policy "triggers": triggers.debounce must be between 0s and 1m0s, got 2m0s`,
			`triggers.bad.yaml:12:18: policy "triggers": triggers.price[1].mint: "not-a-mint" is not a base58 mint address`,
			`triggers.bad.yaml:12:38: policy "triggers": triggers.price[1].change must be a fraction between 0 and 1 (0.02 is 2%), got 2`,
			`triggers.bad.yaml:13:18: policy "triggers": triggers.price[2].mint: So11111111111111111111111111111111111111112 has a price trigger already`,
			`triggers.bad.yaml:13:71: policy "triggers": triggers.price[2].change must be a fraction between 0 and 1 (0.02 is 2%), got 0`,
			`triggers.bad.yaml:16:21: policy "triggers": triggers.account[1].address: So11111111111111111111111111111111111111112 is watched twice`,
			`triggers.bad.yaml:17:11: policy "triggers": triggers.account[2]: give exactly one of address (any change) or pool (its current tick)`,
			`triggers.bad.yaml:18:18: policy "triggers": triggers.account[3].pool: "nope" is not a base58 address`,
			`triggers.bad.yaml:19:21: policy "triggers": triggers.slot.every must be at least 1 slot`,
			`triggers.bad.yaml:26:26: policy "debounce-alone": triggers.debounce needs a trigger: price, account or slot`,
		},
		"semantic.bad.yaml": {
			"semantic.bad.yaml:2:5: name is required",
			"semantic.bad.yaml:4:13: params.trigger_health is required when the policy has no when",
			"semantic.bad.yaml:5:11: policy \"bad name!\": name \"bad name!\" must be 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
			"semantic.bad.yaml:6:11: policy \"bad name!\": unknown kind \"borrow\" (one of repay, rebalance, claim-fees, claim-withdrawals, strategy-update, strategy-withdraw, alert)",
			"semantic.bad.yaml:7:15: policy \"bad name!\": schedule \"*/5 * * *\": expected exactly 5 fields, found 4: [*/5 * * *]",
			"semantic.bad.yaml:10:15: policy \"repay-limits\": schedule: time zones are not supported: schedules run in UTC",
			"semantic.bad.yaml:11:13: policy \"repay-limits\": jitter must not be negative, got -1s",
			"semantic.bad.yaml:12:19: policy \"repay-limits\": max_data_age must be positive, got 0s",
			"semantic.bad.yaml:13:51: policy \"repay-limits\": params.target_health (0.2) must be above trigger_health (0.3)",
			"semantic.bad.yaml:13:68: policy \"repay-limits\": params: set only one of target_health and target_ltv",
			"semantic.bad.yaml:13:85: policy \"repay-limits\": params.min_amount (10) is above max_amount (5)",
			"semantic.bad.yaml:13:117: policy \"repay-limits\": params.ledgers[1]: ledger index 7 is outside 0..4",
			"semantic.bad.yaml:13:120: policy \"repay-limits\": params.ledgers[2]: ledger 0 is listed twice",
			"semantic.bad.yaml:14:36: policy \"repay-limits\": limits.max_actions_per_run must be at least 1, got 0 (use enabled: false to stop a policy)",
			"semantic.bad.yaml:14:53: policy \"repay-limits\": limits.daily_caps: \"not-a-mint\" is not a base58 mint address",
			"semantic.bad.yaml:14:65: policy \"repay-limits\": limits.daily_caps.not-a-mint must be positive (leave the mint out for no cap)",
			"semantic.bad.yaml:15:21: policy \"repay-limits\": submit.mode must be auto, rpc or bundle, got \"jito\"",
			"semantic.bad.yaml:15:41: policy \"repay-limits\": submit.tip_lamports applies to modes bundle and auto only",
			"semantic.bad.yaml:16:25: policy \"repay-limits\": notify.to[1]: notifier \"ops\" is listed twice",
			"semantic.bad.yaml:16:36: policy \"repay-limits\": notify.on[0]: \"alert\" does not apply to a repay policy",
			"semantic.bad.yaml:16:43: policy \"repay-limits\": notify.on[1] must be one of landed, failed, refused, alert, got \"sometimes\"",
			"semantic.bad.yaml:20:23: policy \"rebalance\": select.target is only for alerts (a rebalance policy's targets are positions)",
			"semantic.bad.yaml:20:38: policy \"rebalance\": select.vaults does not apply to positions",
			"semantic.bad.yaml:21:13: policy \"rebalance\": params: set exactly one of width_ticks and width_pct",
			"semantic.bad.yaml:21:66: policy \"rebalance\": params.trigger.edge_pct must lie in (0, 50], got 80",
			"semantic.bad.yaml:21:86: policy \"rebalance\": params.slippage_bps must lie in 1..5000, got 0",
			"semantic.bad.yaml:25:13: policy \"claim-fees\": params: set min_fees_0, min_fees_1 or min_value_usd (any of them) to a positive amount",
			"semantic.bad.yaml:26:5: policy \"claims\": select.vaults is required for withdrawals: the earn vaults whose queues to read",
			"semantic.bad.yaml:29:21: policy \"claims\": submit.mode must be bundle for claim-withdrawals: the claim transactions land in order as one bundle",
			"semantic.bad.yaml:35:25: policy \"strategy\": params.rules[0].collaterals[0]: \"nope\" is neither \"*\" nor a base58 asset identifier",
			"semantic.bad.yaml:36:33: policy \"strategy\": params.rules[0].durations[1]: \"2 fortnights\" is not a term such as \"7 days\" (units: minutes, days, weeks, months, years)",
			"semantic.bad.yaml:37:41: policy \"strategy\": params.rules[0].follow_best_quote.min_apy (0.3) is above max_apy (0.1)",
			"semantic.bad.yaml:38:31: policy \"strategy\": params.rules[0].max_allocation_pct must lie in (0, 100], got 150",
			"semantic.bad.yaml:39:11: policy \"strategy\": params.rules[1]: set apy, follow_best_quote or max_allocation_pct",
			"semantic.bad.yaml:43:13: policy \"sweep\": params.buffer is required: the idle amount to keep (0 sweeps everything)",
			"semantic.bad.yaml:43:27: policy \"sweep\": params.min_amount must be positive",
			"semantic.bad.yaml:47:23: policy \"alert\": select.target must be one of loans, positions, withdrawals, vaults, got \"pools\"",
			"semantic.bad.yaml:48:13: policy \"alert\": params.message is required",
			"semantic.bad.yaml:48:25: policy \"alert\": params.severity must be info, warning or critical, got \"loud\"",
		},
		"templates.bad.yaml": {
			"templates.bad.yaml:7:33: policy \"loop\": params.message: {{range}} is not allowed in a message",
			"templates.bad.yaml:15:9: policy \"recursion\": params.message: define and block are not allowed in a message",
			"templates.bad.yaml:21:27: policy \"wide\": params.message: printf widths and precisions must stay below 1000",
			"templates.bad.yaml:27:25: policy \"syntax\": params.message: unclosed action",
		},
		"twodocs.bad.yaml": {
			"twodocs.bad.yaml:6:1: a second YAML document is not allowed (found '---')",
		},
		"types.bad.yaml": {
			"types.bad.yaml:5:10: policy \"types\": for: \"soon\" is not a duration (examples: 30s, 5m, 1h30m)",
			"types.bad.yaml:6:14: policy \"types\": dry_run: expected true or false, got \"maybe\"",
			"types.bad.yaml:7:31: policy \"types\": params.trigger_health: expected a number, got \"low\"",
			"types.bad.yaml:7:68: policy \"types\": params.max_amount: \"-1\" is not an amount in smallest units (0 to 18446744073709551615)",
			"types.bad.yaml:7:81: policy \"types\": params.ledgers: expected a list, got \"0\"",
			"types.bad.yaml:8:36: policy \"types\": limits.max_actions_per_run: expected an integer that fits int, got \"1.5\"",
			"types.bad.yaml:9:5: a policy must be a mapping, got a scalar",
			"types.bad.yaml:10:11: name: expected a string, got a list",
		},
		"unknown.bad.yaml": {
			"unknown.bad.yaml:4:5: policy \"typo\": unknown field \"shedule\" in the policy (did you mean \"schedule\"?)",
			"unknown.bad.yaml:5:15: policy \"typo\": unknown field \"loan\" in select (did you mean \"loans\"?)",
			"unknown.bad.yaml:6:71: policy \"typo\": unknown field \"min_amout\" in params (did you mean \"min_amount\"?)",
			"unknown.bad.yaml:7:29: policy \"typo\": limits: duplicate key \"cooldown\"",
			"unknown.bad.yaml:13:7: policy \"params-typo\": unknown field \"min_fees_2\" in params (did you mean \"min_fees_0\"?)",
			"unknown.bad.yaml:14:1: unknown field \"extra\" at the top level (known: policies)",
		},
	}
	files, err := filepath.Glob("testdata/*.bad.yaml")
	if err != nil || len(files) != len(want) {
		t.Fatalf("found %d bad files (%v), want %d", len(files), err, len(want))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := Parse(name, data)
			if ps != nil {
				t.Errorf("Parse returned %d policies with errors", len(ps))
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %v is not an Errors", err)
			}
			got := strings.Split(errs.Error(), "\n")
			if !slices.Equal(got, want[name]) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want[name], "\n"))
			}
		})
	}
}

func TestGoodFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.good.yaml")
	if len(files) == 0 {
		t.Fatal("no good files")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestParsedValues checks that every field of a policy arrives where it
// belongs, with defaults filled in.
func TestParsedValues(t *testing.T) {
	data, err := os.ReadFile("testdata/all-kinds.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Parse("all-kinds.good.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if want := []string{"repay-usdc", "rebalance-sol-usdc", "claim-fees", "claim-withdrawals", "track-best-quote", "sweep-idle", "position-out-of-range"}; !slices.Equal(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	r := ps[0]
	mint := "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	rp := r.Params.(*RepayParams)
	switch {
	case r.Kind != KindRepay || r.Line != 3 || r.Column != 5 || r.Schedule != "*/5 * * * *" || r.Cron() == nil:
		t.Errorf("header = %v %d:%d %q", r.Kind, r.Line, r.Column, r.Schedule)
	case r.Jitter != 20*time.Second || r.For != 2*time.Minute || r.MaxDataAge != 2*time.Minute || !r.DryRun || !r.Enabled:
		t.Errorf("durations/flags = %v %v %v %v %v", r.Jitter, r.For, r.MaxDataAge, r.DryRun, r.Enabled)
	case !slices.Equal(r.Select.PrincipalMints, []string{mint}) || r.When != "loan.health < 0.15 && loan.debt_usd > 100":
		t.Errorf("select/when = %+v %q", r.Select, r.When)
	case *rp.TriggerHealth != 0.1 || *rp.TargetHealth != 0.25 || rp.TargetLTV != nil || rp.MinAmount != UnitsOf(1_000_000) ||
		rp.MaxAmount != UnitsOf(5_000_000_000) || rp.RepayAllWithin != 24*time.Hour || !slices.Equal(rp.Ledgers, []int{0, 1}):
		t.Errorf("params = %+v", rp)
	case r.Limits.MaxActionsPerRun != 3 || r.Limits.Cooldown != 15*time.Minute || r.Limits.DailyCaps[mint] != UnitsOf(20_000_000_000) || r.Limits.DailyFeeLamports != 5_000_000:
		t.Errorf("limits = %+v", r.Limits)
	case r.Submit != (Submit{Mode: ModeBundle, TipLamports: 10_000, MaxComputeUnitPrice: 50_000, MaxFeeLamports: DefaultMaxFeeLamports}):
		t.Errorf("submit = %+v", r.Submit)
	case !slices.Equal(r.Notify.To, []string{"ops"}) || !slices.Equal(r.Notify.On, []Event{EventLanded, EventFailed, EventRefused}):
		t.Errorf("notify = %+v", r.Notify)
	}
	rb := ps[1]
	if p := rb.Params.(*RebalanceParams); p.WidthPct != 10 || p.Trigger.EdgePct != 10 || p.SlippageBps != 30 || p.Trigger.String() != "edge_pct 10" {
		t.Errorf("rebalance params = %+v", p)
	}
	if l := rb.Limits; l.MaxActionsPerRun != DefaultMaxActionsPerRun || l.Cooldown != DefaultCooldown || l.DailyCaps != nil || rb.MaxDataAge != DefaultMaxDataAge {
		t.Errorf("defaults = %+v %v", rb.Limits, rb.MaxDataAge)
	}
	if rb.Submit.Mode != ModeAuto || rb.Submit.MaxRentLamports != 15_000_000 || !slices.Equal(rb.Notify.On, []Event{EventFailed, EventRefused}) {
		t.Errorf("submit/notify defaults = %+v %+v", rb.Submit, rb.Notify)
	}
	su := ps[4].Params.(*StrategyUpdateParams)
	if su.MinChangeBps != 25 || len(su.Rules) != 2 || su.Rules[0].durations[1] != days(30) || *su.Rules[1].MaxAllocationPct != 30 || su.originations == nil {
		t.Errorf("strategy-update params = %+v", su)
	}
	if sw := ps[5].Params.(*StrategyWithdrawParams); sw.Buffer != UnitsOf(1_000_000_000) || sw.MinAmount != UnitsOf(100_000_000) {
		t.Errorf("strategy-withdraw params = %+v", sw)
	}
	al := ps[6]
	if ap := al.Params.(*AlertParams); al.Enabled || al.Target() != TargetPositions || ap.Severity != SeverityInfo || !slices.Equal(al.Notify.On, []Event{EventAlert}) {
		t.Errorf("alert = %+v %+v", al, ap)
	}
}

func TestDuplicateAcrossFiles(t *testing.T) {
	a, _ := os.ReadFile("testdata/all-kinds.good.yaml")
	b, _ := os.ReadFile("testdata/crossfile.yaml")
	_, err := ParseAll([]Source{{"all-kinds.good.yaml", a}, {"crossfile.yaml", b}})
	want := `crossfile.yaml:2:11: policy "claim-fees": duplicate policy name (first defined at all-kinds.good.yaml:33:11)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
}

func TestLoadFiles(t *testing.T) {
	ps, err := LoadFiles("testdata", []string{"*.good.yaml", "minimal.good.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 8 || ps[0].File != filepath.Join("testdata", "all-kinds.good.yaml") || ps[7].Name != "repay" {
		t.Errorf("loaded %d policies, first from %s", len(ps), ps[0].File)
	}
	_, err = LoadFiles("testdata", []string{"nothing-*.yaml", "empty.bad.yaml"})
	want := filepath.Join("testdata", "empty.bad.yaml") + ": file is empty: expected a YAML document\n" +
		filepath.Join("testdata", "nothing-*.yaml") + ": no policy file matches this pattern"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
}

func TestCheckNotifiers(t *testing.T) {
	ps, err := Parse("n.yaml", []byte(policyYAML("name: a", "kind: claim-fees", `schedule: "@hourly"`,
		"params: {min_fees_0: 1}", "notify: {to: [ops, pager]}")))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckNotifiers(ps, []string{"ops", "pager"}); err != nil {
		t.Errorf("known notifiers: %v", err)
	}
	err = CheckNotifiers(ps, []string{"ops"})
	want := `n.yaml:6:24: policy "a": notify.to: unknown notifier "pager" (not in the config's notifiers)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
}

func TestJitterDelay(t *testing.T) {
	mk := func(name, jitter string) *Policy {
		return parseOne(t, policyYAML("name: "+name, "kind: claim-fees", `schedule: "@hourly"`, "jitter: "+jitter, "params: {min_fees_0: 1}"))
	}
	a, b := mk("a", "1m"), mk("b", "1m")
	if a.JitterDelay() != mk("a", "1m").JitterDelay() {
		t.Error("jitter delay is not stable")
	}
	if a.JitterDelay() == b.JitterDelay() {
		t.Error("two policies got the same delay")
	}
	if d := a.JitterDelay(); d < 0 || d >= time.Minute {
		t.Errorf("delay %v outside [0, 1m)", d)
	}
	if d := mk("a", "0s").JitterDelay(); d != 0 {
		t.Errorf("delay %v without jitter", d)
	}
}

func TestFileShapes(t *testing.T) {
	tests := []struct{ src, want string }{
		{"policies:\n", "f:1:10: policies must be a list of policies (use [] for none)"},
		{"policies: 5\n", `f:1:11: policies: expected a list, got "5"`},
		{"policies: []\n", ""},
		{"- a\n", "f:1:1: document: expected a mapping, got a list"},
		{"policies:\n  - 1\n", "f:2:5: a policy must be a mapping, got a scalar"},
		{"other: 1\n", "f:1:1: unknown field \"other\" at the top level (known: policies)\nf:1:1: policies is required: a list of policies"},
		{"", "f: file is empty: expected a YAML document"},
		{"policies: []\n# \x00\n", "f:2:3: control character U+0000 is not allowed in a YAML file"},
		{"policies: [] # caf\xe9\n", "f:1:19: byte 0xe9 is not UTF-8 text: a YAML file must be UTF-8"},
	}
	for _, tc := range tests {
		ps, err := Parse("f", []byte(tc.src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || len(ps) != 0 {
			t.Errorf("Parse(%q) = %d policies, %q; want %q", tc.src, len(ps), got, tc.want)
		}
	}
}

// TestKindThroughAnchors: a policy's params decode into its kind's type
// whether the kind is written, an alias of another policy's, or (refused)
// brought in by a merge key.
func TestKindThroughAnchors(t *testing.T) {
	const params = "    schedule: \"@every 1m\"\n    params: {trigger_health: 0.1, target_health: 0.2, max_amount: 7}\n"
	ps, err := Parse("f.yaml", []byte("policies:\n  - name: x\n    kind: &k repay\n"+params+"  - name: y\n    kind: *k\n"+params))
	if err != nil || len(ps) != 2 || ps[1].Params.(*RepayParams).MaxAmount != UnitsOf(7) {
		t.Fatalf("alias of a kind: %v, %v", ps, err)
	}
	_, err = Parse("f.yaml", []byte("policies:\n  - <<: {kind: repay}\n    name: x\n"+params))
	if err == nil || err.Error() != `f.yaml:2:5: policy "x": unknown field "<<" in the policy (known: authority, dry_run, enabled, for, jitter, kind, limits, max_data_age, name, notify, params, schedule, select, submit, triggers, when)` {
		t.Errorf("a kind from a merge key: %v", err)
	}
}

// TestWarnings: what a policy accepts but cannot work as written is
// reported at its position: a schedule naming no date that exists, and a
// daily cap only on mints a repay never spends (it is uncapped).
func TestWarnings(t *testing.T) {
	usdcMint, solMint := key("usdc"), key("sol")
	repay := func(schedule, extra string) string {
		return policyYAML("name: r", "kind: repay", "schedule: "+schedule, "select: {principal_mints: ["+usdcMint+"]}",
			"params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}", extra)
	}
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{repay(`"0 0 30 2 *"`, ""), []string{`test.yaml:4:15: policy "r": schedule "0 0 30 2 *" names no date that exists: it never runs`}},
		{repay(`"0 0 30 2 *"`, "triggers: {slot: {every: 10}}"), []string{`schedule "0 0 30 2 *" names no date that exists: it runs on its triggers only`}},
		{repay(`"0 0 29 2 *"`, ""), nil},
		{repay(`"@every 1m"`, "limits: {daily_caps: {"+solMint+": 5}}"), []string{
			`test.yaml:7:14: policy "r": limits.daily_caps: no cap is on a mint the policy spends: its repayments are uncapped`,
			`test.yaml:7:27: policy "r": limits.daily_caps: the policy never spends ` + solMint + ` (not in select.principal_mints): this cap never applies`}},
		{repay(`"@every 1m"`, "limits: {daily_caps: {"+solMint+": 5, "+usdcMint+": 5}}"), []string{
			`limits.daily_caps: the policy never spends ` + solMint}},
		{repay(`"@every 1m"`, "limits: {daily_caps: {"+usdcMint+": 5}}"), nil},
	} {
		p := parseOne(t, tc.src)
		var got []string
		for _, w := range p.Warnings() {
			got = append(got, w.Error())
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s\nwarnings %q\nwant     %q", tc.src, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tc.want[i]) {
				t.Errorf("%s\nwarning %q\nlacks   %q", tc.src, got[i], tc.want[i])
			}
		}
	}
}
