package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// alertRule is one alerting rule of examples/monitoring.
type alertRule struct {
	Alert       string
	Expr        string
	Annotations map[string]string
}

// alertRules reads examples/monitoring's alerting rules.
func alertRules(t *testing.T) []alertRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("monitoring", "keeper.rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Groups []struct{ Rules []alertRule } }
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []alertRule
	for _, g := range doc.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) == 0 {
		t.Fatal("no rules read")
	}
	return out
}

// readDoc returns docs/name.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRulesLinkTheirRunbook: every alert's runbook_url points at its entry in docs/operations.md.
func TestRulesLinkTheirRunbook(t *testing.T) {
	ops := readDoc(t, "operations.md")
	const page = "https://github.com/keeper-project/keeper/blob/main/docs/operations.md#"
	for _, r := range alertRules(t) {
		anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], page)
		if !ok || anchor == "" {
			t.Errorf("%s: runbook_url %q does not point into docs/operations.md", r.Alert, r.Annotations["runbook_url"])
			continue
		}
		if !strings.Contains(ops, `<a id="`+anchor+`"></a>`+"`"+r.Alert+"`") {
			t.Errorf("%s: docs/operations.md has no runbook entry with id %q", r.Alert, anchor)
		}
	}
}

// TestLowSOLThresholdAgrees: the docs quote the threshold KeeperWalletSOLLow fires under.
func TestLowSOLThresholdAgrees(t *testing.T) {
	var lamports uint64
	for _, r := range alertRules(t) {
		if m := regexp.MustCompile(`keeper_wallet_balance_lamports < (\d+)`).FindStringSubmatch(r.Expr); r.Alert == "KeeperWalletSOLLow" && m != nil {
			lamports, _ = strconv.ParseUint(m[1], 10, 64)
		}
	}
	if lamports == 0 {
		t.Fatal("KeeperWalletSOLLow has no lamports threshold")
	}
	ops := readDoc(t, "operations.md")
	sol := strconv.FormatFloat(float64(lamports)/1e9, 'f', -1, 64)
	for _, m := range regexp.MustCompile(`keeper_wallet_balance_lamports < (\d+) +# under ([0-9.]+) SOL`).FindAllStringSubmatch(ops, -1) {
		if m[1] != strconv.FormatUint(lamports, 10) || m[2] != sol {
			t.Errorf("docs/operations.md alerts under %s lamports (%s SOL); the rule under %d (%s SOL)", m[1], m[2], lamports, sol)
		}
	}
	if !strings.Contains(ops, "`KeeperWalletSOLLow` | Under "+sol+" SOL") {
		t.Errorf("docs/operations.md's runbook does not say KeeperWalletSOLLow fires under %s SOL", sol)
	}
}

// TestDashboardSelectsJobAndInstance: the dashboard's job comes from the data source and an
// instance variable tells an HA pair's keepers apart; every query selects both.
func TestDashboardSelectsJobAndInstance(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("monitoring", "keeper.dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []struct {
				Name, Type string
				Query      any
			}
		}
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v.Type
		if q, _ := v.Query.(string); v.Type == "query" && !strings.HasPrefix(q, "label_values(") {
			t.Errorf("variable %s: query %q does not list label values from the data source", v.Name, q)
		}
	}
	if vars["job"] != "query" || vars["instance"] != "query" {
		t.Errorf("variables %v: want job and instance queried from the data source", vars)
	}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			if !strings.Contains(tg.Expr, `job="$job", instance=~"$instance"`) {
				t.Errorf("panel %q: %s does not select $job and $instance", p.Title, tg.Expr)
			}
		}
	}
}
