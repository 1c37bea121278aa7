package keeper

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/signer"
)

// TestRulesTestFeedsWhatKeeperExports: every counter that the shipped
// rules' promtool test feeds from 0 is exported at 0 by a daemon that has
// just started (no refusal, no failure yet), so that the alerts on
// increase() fire on the first refusal or failure as the test shows.
func TestRulesTestFeedsWhatKeeperExports(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		r := k.start(t)
		synctest.Wait()
		scraped := scrapedSeries(scrapeMetrics(k))
		for _, in := range rulesTestInputs(t) {
			if !strings.HasSuffix(in.name, "_total") || !strings.HasPrefix(in.values, "0") {
				continue
			}
			if v, ok := scraped[in.key()]; !ok || v != 0 {
				t.Errorf("the rules test feeds %s from 0; at start keeper exports it: %v (value %v)", in.key(), ok, v)
			}
		}
		if err := r.stop(); err != nil {
			t.Error(err)
		}
	})
}

// TestGuardRulesCoverSigner: every rule the guard declares is exported at
// 0 from the start.
func TestGuardRulesCoverSigner(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "signer", "refusal.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Rule" {
			return true
		}
		lit, ok := vs.Values[0].(*ast.BasicLit)
		if !ok {
			return true
		}
		rule, _ := strconv.Unquote(lit.Value)
		n++
		if !slices.Contains(guardRules, signer.Rule(rule)) {
			t.Errorf("guard rule %s is not exported at 0 (metrics.go guardRules)", rule)
		}
		return true
	})
	if n < 20 {
		t.Fatalf("found %d rules in signer/refusal.go; the test no longer reads them", n)
	}
}

// scrapeMetrics is what k's /metrics serves.
func scrapeMetrics(k *simKeeper) string {
	rec := httptest.NewRecorder()
	opsHandler(k.registry, k.upkeep.readiness, k.status).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

// rulesInput is one input series of a promtool test.
type rulesInput struct {
	name   string
	labels map[string]string
	values string
}

// key is the series as keeper exports it: without the labels Prometheus
// adds (job, instance), the others sorted.
func (in rulesInput) key() string {
	var pairs []string
	for k, v := range in.labels {
		if k != "job" && k != "instance" {
			pairs = append(pairs, k+"="+strconv.Quote(v))
		}
	}
	slices.Sort(pairs)
	return in.name + "{" + strings.Join(pairs, ",") + "}"
}

var (
	seriesLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"`)
)

// rulesTestInputs reads the input series of examples/monitoring's promtool test.
func rulesTestInputs(t *testing.T) []rulesInput {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "monitoring", "keeper.rules.test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests []struct {
			InputSeries []struct{ Series, Values string } `yaml:"input_series"`
		}
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []rulesInput
	for _, tc := range doc.Tests {
		for _, s := range tc.InputSeries {
			m := seriesLine.FindStringSubmatch(s.Series + " x")
			if m == nil {
				t.Fatalf("cannot read series %q", s.Series)
			}
			in := rulesInput{name: m[1], labels: map[string]string{}, values: s.Values}
			for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
				in.labels[p[1]] = p[2]
			}
			out = append(out, in)
		}
	}
	return out
}

// scrapedSeries maps each series of a /metrics text to its value.
func scrapedSeries(text string) map[string]float64 {
	out := map[string]float64{}
	for line := range strings.Lines(text) {
		m := seriesLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || strings.HasPrefix(line, "#") {
			continue
		}
		in := rulesInput{name: m[1], labels: map[string]string{}}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			in.labels[p[1]] = p[2]
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		out[in.key()] = v
	}
	return out
}
