package examples_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyTerms is a flow mapping of APYs for terms of 1 to n days, apy + d each.
func manyTerms(n, apy int) string {
	parts := make([]string, n)
	for d := 1; d <= n; d++ {
		parts[d-1] = fmt.Sprintf("%dd: %d", d, apy+d)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// splitScenarioFile writes the default scenario with strategies alpha and beta quoting SOL for 40
// terms each, so that following beta's quotes updates 40 of alpha's terms at once: more than one
// transaction holds, and the market splits the update.
func splitScenarioFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "keeper", "sim", "default_scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, r := range [][2]string{
		{"apys: {7d: 120000, 30d: 110000}", "apys: " + manyTerms(40, 120000)},
		{"apys: {7d: 100000, 30d: 95000}", "apys: " + manyTerms(40, 90000)},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the default scenario changed; cannot find %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	path := filepath.Join(t.TempDir(), "split.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// termName is how the market names a term of d days.
func termName(d int) string { return fmt.Sprintf("%d days", d) }

// TestE2ESplitStrategyUpdate runs vault-upkeep.yaml's track-best-quote rule over 40 terms against a
// strategy that has them: the market answers E1 with several transactions, each applying only after the one before
// it. keeper lands them in order, once each, and every term ends where the policy put it.
func TestE2ESplitStrategyUpdate(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSimWith(t, "--manual-clock", "--scenario", splitScenarioFile(t))
	w := newWorkspace(t, s)
	s.until(t, 1)
	durations := make([]string, 40)
	for d := range durations {
		durations[d] = fmt.Sprintf("%q", termName(d+1))
	}
	policy := filepath.Join(t.TempDir(), "track-40.yaml")
	text := `policies:
  - name: track-best-quote
    kind: strategy-update
    schedule: "@every 5s"
    params:
      min_change_bps: 50
      rules:
        - collaterals: ["*"]
          durations: [` + strings.Join(durations, ", ") + `]
          follow_best_quote: { offset_bps: 25, min_apy: 0.05, max_apy: 0.2 }
`
	if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := w.config(t, "split", []string{policy})
	w.once(t, cfg)
	after := s.state(t)
	vault := s.address(t, "vault", "alpha-vault")
	acts := w.landedOnce(t, cfg, after, map[string]string{"track-best-quote": vault})
	if a := acts["track-best-quote"]; a.Attempts != 1 || len(a.Signatures) < 2 {
		t.Errorf("track-best-quote: %d attempts, %d transactions; want one attempt of several (%s)", a.Attempts, len(a.Signatures), a.Reason)
	}
	terms := after.Strategies["alpha"].Terms["SOL"]
	if len(terms) != 40 {
		t.Fatalf("alpha has %d SOL terms, want 40", len(terms))
	}
	for d := 1; d <= 40; d++ {
		key := termName(d)
		// beta quotes 90000 + d; the policy follows the best other quote plus 0.25 % (2500).
		if got, want := terms[key], int64(90000+d+2500); got != want {
			t.Errorf("alpha SOL %s APY %d, want %d", key, got, want)
		}
	}
	w.once(t, cfg)
	w.nothingNew(t, cfg, s.state(t))
}
