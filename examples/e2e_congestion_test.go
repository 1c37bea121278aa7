package examples_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestE2ERepayUnderCongestion runs the real binary against `keeper sim` on the default scenario
// with a competing load on the loan repay-me and on the wallet from 1 s on (other users bid 50,000
// to 400,000 micro-lamports per compute unit): a repay bidding nothing is accepted and never lands.
// keeper prices it through the build (its ComputeBudget instructions as setupIxs) from the fee
// market, so it lands once, in its first attempt, paying a priority fee.
func TestE2ERepayUnderCongestion(t *testing.T) {
	needBinary(t)
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "keeper", "sim", "default_scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data) + "  - at: 1s\n    congestion: {accounts: [repay-me, $wallet], prices: [50000, 100000, 400000]}\n"
	scenario := filepath.Join(t.TempDir(), "congested.yaml")
	if err := os.WriteFile(scenario, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSimWith(t, "--manual-clock", "--scenario", scenario)
	w := newWorkspace(t, s)
	s.until(t, 10)
	before := s.state(t)
	loan := before.Loans["repay-me"]
	cfg := w.config(t, "repay", []string{autoRepay})
	w.once(t, cfg)
	after := s.state(t)
	acts := w.landedOnce(t, cfg, after, map[string]string{"auto-repay": loan.Address})
	if a := acts["auto-repay"]; a.Attempts != 1 || len(a.Signatures) != 1 {
		t.Fatalf("repay: %d attempts, %d transactions; want one attempt of one", a.Attempts, len(a.Signatures))
	}
	for _, tx := range after.Signed[len(before.Signed):] {
		if tx.Signature == acts["auto-repay"].Signatures[0] && tx.Fee <= 5000 {
			t.Errorf("the repay paid %d lamports of fees, want a priority fee above the base 5000", tx.Fee)
		}
	}
}
