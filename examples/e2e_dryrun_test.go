package examples_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// TestE2EDryRun plays the whole scenario, then has `keeper plan` name each use case's action and
// `keeper run --once --dry-run` journal each as skipped, print it, and sign nothing.
func TestE2EDryRun(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 41)
	cfg := w.config(t, "all", []string{autoRepay, rebalance, claimFees, claimWithdrawals, vaultUpkeep, alerts})
	before := s.state(t)
	vault := s.address(t, "vault", "alpha-vault")
	loan := before.Loans["repay-me"].Address
	actions := []struct{ policy, kind, what, target string }{
		{"auto-repay", "repay", "repay loan", loan},
		{"auto-repay-sol", "repay", "repay loan", before.Loans["repay-sol"].Address},
		{"rebalance-dex-a", "rebalance", "move position", before.Positions["pos-a"].Mint},
		{"claim-fees-dex-b", "claim-fees", "claim fees of position", before.Positions["pos-b"].Mint},
		{"claim-earn-withdrawals", "claim-withdrawals", "claim withdrawal request", before.Requests["usdc-earn/r-full"].Address},
		{"track-best-quote", "strategy-update", "update a strategy of vault", vault},
		{"sweep-idle-principal", "strategy-withdraw", "withdraw from a strategy of vault", vault},
		{"vault-apy-floor", "alert", "alert (warning)", vault},
		{"loan-health-low", "alert", "alert (critical)", loan},
	}

	plan := planSections(runKeeper(t, w.dir, "plan", "--config", cfg).wantExit(t, 0).stdout)
	for _, a := range actions {
		if !hasPrefixLine(plan[a.policy+" ["+a.kind+"]"], "  + "+a.what+" "+a.target+": ") {
			t.Errorf("keeper plan, policy %s: %q, want a line for %s on %s", a.policy, plan[a.policy+" ["+a.kind+"]"], a.what, a.target)
		}
	}

	r := w.once(t, cfg, "--dry-run")
	printed := dryRunLines(t, r.stderr)
	journal := map[string]action{}
	for _, a := range w.history(t, cfg) {
		journal[a.Policy] = a
		if a.State != "skipped" || !a.DryRun || a.Rule != "dry-run" || len(a.Signatures) != 0 || len(a.Tips) != 0 || a.Attempts != 0 {
			t.Errorf("dry-run action %+v, want skipped by rule dry-run without attempts or signatures", a)
		}
	}
	for _, a := range actions {
		if a.kind == "alert" {
			continue
		}
		if got := journal[a.policy]; got.Target != a.target || got.Kind != a.kind {
			t.Errorf("journal for %s: %+v, want a %s on %s", a.policy, got, a.kind, a.target)
		}
		if printed[a.policy] != a.target {
			t.Errorf("dry run printed %q for %s, want its plan on %s", printed[a.policy], a.policy, a.target)
		}
	}
	if len(journal) != 7 {
		t.Errorf("journal holds %d policies' actions, want 7", len(journal))
	}
	after := s.state(t)
	if len(after.Signed) != 0 || after.Wallet.Lamports != before.Wallet.Lamports || !maps.Equal(after.Wallet.Tokens, before.Wallet.Tokens) {
		t.Errorf("dry run changed the wallet or signed: %+v → %+v, signed %v", before.Wallet, after.Wallet, after.Signed)
	}
	if after.Loans["repay-me"].Outstanding != before.Loans["repay-me"].Outstanding || !after.Requests["usdc-earn/r-full"].Open ||
		after.Positions["pos-a"].LowerTick != before.Positions["pos-a"].LowerTick {
		t.Errorf("dry run changed market state: repay-me %+v → %+v, r-full %+v → %+v, pos-a %+v → %+v",
			before.Loans["repay-me"], after.Loans["repay-me"], before.Requests["usdc-earn/r-full"], after.Requests["usdc-earn/r-full"],
			before.Positions["pos-a"], after.Positions["pos-a"])
	}
}

// planSections splits `keeper plan` output into its policies' lines, keyed by "name [kind]".
func planSections(out string) map[string][]string {
	sections := map[string][]string{}
	head := ""
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(line, " ") {
			head = strings.TrimSuffix(line, " (dry run)")
			continue
		}
		sections[head] = append(sections[head], line)
	}
	return sections
}

func hasPrefixLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// dryRunLines returns, by policy, the target of each "Dry run: would act" log line.
func dryRunLines(t *testing.T, stderr string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for line := range strings.Lines(stderr) {
		var l struct{ Msg, Policy, Target, Reason string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		if l.Msg == "Dry run: would act" && l.Reason != "" {
			out[l.Policy] = l.Target
		}
	}
	return out
}
