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
