package examples_test

import (
	"strings"
	"testing"
)

// TestE2EClaimFeesByValue runs `keeper run --once` with a claim-fees policy by value against
// `keeper sim`: pos-b, never touched while its fees accrue, is worth 13.60 USD at 12 s (SOL at 110
// on its Pyth feed: nothing is claimed) and 34.60 USD at 27 s: claimed once, the reason showing
// the numbers, the wallet paid the fees.
func TestE2EClaimFeesByValue(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	cfg := w.config(t, "value", []string{"testdata/e2e/claim-by-value.yaml"})
	s.until(t, 12)
	w.once(t, cfg)
	if acts := w.newActions(t, cfg); len(acts) != 0 {
		t.Fatalf("at 13.60 USD owed: %+v, want nothing under the 20 USD minimum", acts)
	}
	s.until(t, 27)
	before := s.state(t)
	w.once(t, cfg)
	acts := w.newActions(t, cfg)
	if len(acts) != 1 || acts[0].State != "landed" || acts[0].Target != before.Positions["pos-b"].Mint ||
		!strings.HasPrefix(acts[0].Reason, "fees owed 0.16 SOL + 17 USDC = 34.60 USD ≥ min_value_usd 20.00 and > the claim's cost") {
		t.Fatalf("at 34.60 USD owed: %+v, want pos-b's claim landed with the numbers", acts)
	}
	after := s.state(t)
	if got := after.Wallet.Tokens["USDC"] - before.Wallet.Tokens["USDC"]; got != 17*usdc {
		t.Errorf("wallet received %d USDC units of fees, want 17 USDC", got)
	}
}
