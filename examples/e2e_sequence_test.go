package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EClaimIntoWalletWithoutTokenAccount runs the real binary against `keeper sim` on the
// default scenario with a wallet that holds no USDC, so has no USDC token account: the market's
// claim of the filled withdrawal creates the account in a first transaction and claims into it in
// a second, one bundle. keeper simulates the bundle in order (simulateBundle) and lands it once.
func TestE2EClaimIntoWalletWithoutTokenAccount(t *testing.T) {
	needBinary(t)
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "keeper", "sim", "default_scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "  tokens: {USDC: \"1000\"}\n", "", 1)
	if text == string(data) {
		t.Fatal("the default scenario no longer gives the wallet USDC; update this test")
	}
	scenario := filepath.Join(t.TempDir(), "no-usdc-account.yaml")
	if err := os.WriteFile(scenario, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSimWith(t, "--manual-clock", "--scenario", scenario)
	w := newWorkspace(t, s)
	s.until(t, 20)
	before := s.state(t)
	if got := before.Wallet.Tokens["USDC"]; got != 0 {
		t.Fatalf("wallet holds %d USDC units at the start, want none", got)
	}
	full := before.Requests["usdc-earn/r-full"]
	cfg := w.config(t, "claim", []string{claimWithdrawals})
	w.once(t, cfg)
	after := s.state(t)
	acts := w.landedOnce(t, cfg, after, map[string]string{"claim-earn-withdrawals": full.Address})
	if a := acts["claim-earn-withdrawals"]; a.Attempts != 1 || len(a.Signatures) != 2 {
		t.Errorf("claim: %d attempts, %d transactions; want one attempt of two (create the account, claim)", a.Attempts, len(a.Signatures))
	}
	if got := after.Wallet.Tokens["USDC"]; got != rFullAmount {
		t.Errorf("wallet holds %d USDC units, want the %d claimed", got, rFullAmount)
	}
	w.once(t, cfg)
	w.nothingNew(t, cfg, s.state(t))
}

// solLoanScenarioFile writes the default scenario plus a loan of the wallet in wrapped SOL (the
// native mint): 9 SOL borrowed from strategy delta against 10 JITOSOL, at health ~0.09.
func solLoanScenarioFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "keeper", "sim", "default_scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, r := range [][2]string{
		{"  - {symbol: JTO, decimals: 9, price: 2.5}\n", "  - {symbol: JTO, decimals: 9, price: 2.5}\n" +
			"  - {symbol: WSOL, decimals: 9, price: 150, address: So11111111111111111111111111111111111111112}\n"},
		{"vaults:\n  - name: alpha-vault", "  - name: delta\n    authority: lender\n    principal_mint: WSOL\n    idle: \"100\"\n" +
			"    terms:\n      - collateral: JITOSOL\n        ltv: 850000\n        lqt: 900000\n        apys: {30d: 60000}\n\n" +
			"vaults:\n  - name: alpha-vault"},
		{"  - name: alice-sol\n", "  - name: repay-sol\n    borrower: $wallet\n    started: \"-1d\"\n    collateral:\n" +
			"      - {mint: JITOSOL, amount: \"10\"}\n    ledgers:\n      - {strategy: delta, principal: \"9\", term: 30d}\n" +
			"  - name: alice-sol\n"},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the default scenario changed; cannot find %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	path := filepath.Join(t.TempDir(), "sol-loan.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// repaySOLPolicy repays wrapped-SOL loans under health 0.2 back to 0.3.
const repaySOLPolicy = `policies:
  - name: repay-sol
    kind: repay
    schedule: "@every 5s"
    select:
      principal_mints: [So11111111111111111111111111111111111111112]
    params: { trigger_health: 0.2, target_health: 0.3, min_amount: 10000000, max_amount: 5000000000 }
    submit: { mode: rpc }
`

// TestE2ENativeSOLRepay runs the real binary against `keeper sim` with a loan in wrapped SOL: the
// market's answer wraps the repay from the wallet's native SOL (wrap, sync, repay, close). keeper
// lands it once, and the wallet pays exactly the repaid principal and the fee.
func TestE2ENativeSOLRepay(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSimWith(t, "--manual-clock", "--scenario", solLoanScenarioFile(t))
	w := newWorkspace(t, s)
	policy := filepath.Join(t.TempDir(), "repay-sol.yaml")
	if err := os.WriteFile(policy, []byte(repaySOLPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	s.until(t, 1)
	before := s.state(t)
	loan := before.Loans["repay-sol"]
	if loan.Health >= 0.2 {
		t.Fatalf("repay-sol health %.3f, want under the trigger", loan.Health)
	}
	cfg := w.config(t, "repay-sol", []string{policy})
	w.once(t, cfg)
	after := s.state(t)
	w.landedOnce(t, cfg, after, map[string]string{"repay-sol": loan.Address})
	repaid := after.Loans["repay-sol"].Repaid - loan.Repaid
	var fees uint64
	for _, tx := range after.Signed[len(before.Signed):] {
		if tx.FeePayer {
			fees += tx.Fee
		}
	}
	if paid := before.Wallet.Lamports - after.Wallet.Lamports; repaid == 0 || paid != repaid+fees {
		t.Errorf("wallet paid %d lamports, want the %d repaid and the %d of fees (the wrapped-SOL account's rent back)", paid, repaid, fees)
	}
	if h := after.Loans["repay-sol"].Health; h < 0.29 {
		t.Errorf("health after the repay %.3f, want back near 0.3", h)
	}
}
