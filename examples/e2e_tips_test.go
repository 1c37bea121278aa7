package examples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestE2ETipAccountsAreKeptBetweenRuns: `keeper run --once` with a bundle policy (one repay a run,
// two loans to repay) asks the block engine for its tip accounts once and lands its repay by bundle;
// the next run on the same journal starts from the accounts the journal kept, asks the engine
// nothing but its own bundle, and lands the other repay.
func TestE2ETipAccountsAreKeptBetweenRuns(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	scenario, policy := filepath.Join(dir, "action.yaml"), filepath.Join(dir, "auto-repay.yaml")
	second := `  - {name: low2, borrower: $wallet, collateral: [{mint: SOL, amount: "10"}], ledgers: [{strategy: beta, principal: "1100", term: 30d}]}
`
	if err := os.WriteFile(scenario, []byte(benchActionScenario+second), 0o644); err != nil {
		t.Fatal(err)
	}
	oneARun := bytes.ReplaceAll(bundleSubmit(t, autoRepay), []byte("    limits:\n"), []byte("    limits:\n      max_actions_per_run: 1\n"))
	if err := os.WriteFile(policy, oneARun, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSimWith(t, "--control", "--scenario", scenario)
	w := newWorkspace(t, s)
	cfg := w.config(t, "tips", []string{policy})
	asked := func() (tips, bundles uint64) {
		st := s.state(t)
		return st.Service["jito getTipAccounts"].Answers, st.Service["jito sendBundle"].Answers
	}
	runKeeper(t, w.dir, "run", "--once", "--config", cfg).wantExit(t, 0)
	if tips, bundles := asked(); tips != 1 || bundles == 0 {
		t.Fatalf("first run: the engine answered %d getTipAccounts and %d sendBundle, want one and the repay's", tips, bundles)
	}
	if signed := s.state(t).Signed; len(signed) != 2 || signed[0].BundleID == "" {
		t.Fatalf("first run: landed %+v, want one repay and its tip by bundle", signed)
	}
	runKeeper(t, w.dir, "run", "--once", "--config", cfg).wantExit(t, 0)
	if tips, _ := asked(); tips != 1 {
		t.Errorf("second run: the engine answered %d getTipAccounts in all, want still one", tips)
	}
	if signed := s.state(t).Signed; len(signed) != 4 || signed[2].BundleID == "" {
		t.Errorf("landed %+v, want two repays and their tips by bundle", signed)
	}
}
