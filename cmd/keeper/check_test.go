package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// usdcMint is a mint the check tests' policies spend.
const usdcMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

// checkWith writes a config (head, then extra lines) and one policy file,
// and runs keeper check on them.
func checkWith(t *testing.T, extra, policy string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	cfg := "market: { program_id: SimMarket1111111111111111111111111111111111, base_url: \"http://127.0.0.1:7070/v1\" }\n" +
		"signer: { pubkey: FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo }\npolicies: [\"p.yaml\"]\n" + extra
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return runCLI(t, "check", "--config", filepath.Join(dir, "c.yaml"))
}

// repayIn is a repay of USDC loans whose max_amount and limits are given.
func repayIn(maxAmount, more string) string {
	return "policies:\n  - name: r\n    kind: repay\n    schedule: \"@every 1m\"\n    select: { principal_mints: [" + usdcMint + "] }\n" +
		"    params: { trigger_health: 0.2, target_health: 0.3, max_amount: " + maxAmount + " }\n" + more
}

// TestCheckRefusesWhatRunRefuses: check exits as run would on what run
// refuses, and warns on what run accepts but cannot work.
func TestCheckRefusesWhatRunRefuses(t *testing.T) {
	tokens := "tokens: { " + usdcMint + ": { symbol: USDC, decimals: 6 } }\n"
	for _, tc := range []struct {
		name, extra, policy string
		code                int
		want                string
	}{
		{"unknown unit", tokens, repayIn("500 USDX", ""), exitFailed,
			"policy r: params.max_amount 500 USDX is in USDX, but the amount is spent in USDC"},
		{"another token", tokens, repayIn("200 SOL", ""), exitFailed, "params.max_amount 200 SOL is in SOL"},
		{"a mint as the unit", "", repayIn(`"200 So11111111111111111111111111111111111111112"`, ""), exitFailed, "is in So11…1112, but the amount is spent in"},
		{"unit not known offline", "", repayIn("500 USDX", ""), exitOK,
			"warning: policy r: params.max_amount 500 USDX is not checked offline: the config's tokens do not describe " + usdcMint},
		{"a journal folder missing", "journal: { dsn: 'sqlite:/nonexistent/dir/k.db' }\n", repayIn("1", ""), exitUsage,
			"c.yaml:4:17: journal.dsn: the journal's folder /nonexistent/dir cannot be used"},
		{"a rate that is not a number", "chain: { rate_limit: { rps: .nan } }\n", repayIn("1", ""), exitUsage,
			"c.yaml:4:29: chain.rate_limit.rps: expected a finite number, got \".nan\""},
		{"a cron that never fires", "", strings.Replace(repayIn("1", ""), "@every 1m", "0 0 30 2 *", 1), exitOK,
			"p.yaml:4:15: policy \"r\": schedule \"0 0 30 2 *\" names no date that exists: it never runs"},
		{"a cap on a mint never spent", "", repayIn("1", "    limits: { daily_caps: { So11111111111111111111111111111111111111112: 5 } }\n"), exitOK,
			"p.yaml:7:15: policy \"r\": limits.daily_caps: no cap is on a mint the policy spends: its repayments are uncapped"},
		{"NUL in a policy", "", repayIn("1", "# \x00\n"), exitFailed, "p.yaml:7:3: control character U+0000 is not allowed"},
		{"an empty policy file", "", "", exitFailed, "p.yaml: file is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := checkWith(t, tc.extra, tc.policy)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}
