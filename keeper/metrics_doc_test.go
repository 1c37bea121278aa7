package keeper

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestEveryMetricIsDocumented checks that docs/operations.md's table names
// every metric keeper registers, with its type.
func TestEveryMetricIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	fqName := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	descs := make(chan *prometheus.Desc, 100)
	for _, c := range NewMetrics(nil).collectors() {
		c.Describe(descs)
	}
	close(descs)
	n := 0
	for d := range descs {
		m := fqName.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		n++
		if !strings.Contains(string(doc), "| `"+m[1]+"` |") {
			t.Errorf("%s is not in docs/operations.md's table of metrics", m[1])
		}
	}
	if n < 20 {
		t.Fatalf("only %d metrics described", n)
	}
}
