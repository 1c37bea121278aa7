package examples_test

import (
	"maps"
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

// TestE2ENativeSOLRepay runs the real binary against `keeper sim` on the default scenario, whose
// loan "repay-sol" borrows wrapped SOL (the native mint) against JITOSOL that depegs at 40s: the
// market's answer wraps the repay from the wallet's native SOL (wrap, sync, repay, close). keeper
// lands it once, and the wallet pays exactly the repaid principal and the fee.
func TestE2ENativeSOLRepay(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 41)
	before := s.state(t)
	loan := before.Loans["repay-sol"]
	if loan.Health >= 0.2 {
		t.Fatalf("repay-sol health %.3f, want under the trigger", loan.Health)
	}
	cfg := w.config(t, "repay-sol", []string{autoRepay})
	w.once(t, cfg)
	after := s.state(t)
	w.landedOnce(t, cfg, after, map[string]string{"auto-repay-sol": loan.Address, "auto-repay": before.Loans["repay-me"].Address})
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

// TestE2ERepayOneUnitOverItsBoundIsRefused runs `keeper sim --hostile one-over`: every answer moves
// one unit more of its mint out of the wallet than was asked (one lamport, for the wrapped-SOL
// loan). Both repays are refused with a rule, nothing is signed onto the chain, the wallet is
// unchanged and `run --once` exits 1.
func TestE2ERepayOneUnitOverItsBoundIsRefused(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSimWith(t, "--manual-clock", "--hostile", "one-over")
	w := newWorkspace(t, s)
	s.until(t, 41)
	before := s.state(t)
	cfg := w.config(t, "one-over", []string{autoRepay})
	w.sim.runActing(t, w.dir, "run", "--once", "--config", cfg, "--log-format", "json").wantExit(t, 1)
	after := s.state(t)
	refused := map[string]string{}
	for _, a := range w.history(t, cfg) {
		if a.State != "refused" || a.Rule == "" || len(a.Signatures) != 0 {
			t.Errorf("action %+v, want refused by a rule, nothing signed", a)
		}
		refused[a.Policy] = a.Target
	}
	want := map[string]string{"auto-repay": before.Loans["repay-me"].Address, "auto-repay-sol": before.Loans["repay-sol"].Address}
	if !maps.Equal(refused, want) {
		t.Errorf("refused %v, want %v", refused, want)
	}
	if len(after.Signed) != len(before.Signed) || after.Wallet.Lamports != before.Wallet.Lamports ||
		!maps.Equal(after.Wallet.Tokens, before.Wallet.Tokens) {
		t.Errorf("the wallet changed or something was signed: %+v → %+v", before.Wallet, after.Wallet)
	}
}
