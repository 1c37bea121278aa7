package keeper

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestMonitoringNamesExist scrapes /metrics of a daemon run against the
// simulator and checks that every metric examples/monitoring's rules and
// dashboard name is there, or is one of keeper's declared metrics that has
// no series yet (a counter by rule before the first refusal).
func TestMonitoringNamesExist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(6 * time.Second)
		synctest.Wait()
		scraped := scrapeMetrics(k)
		declared := map[string]bool{}
		ch := make(chan *prometheus.Desc, 64)
		go func() {
			for _, c := range k.metrics.collectors() {
				c.Describe(ch)
			}
			close(ch)
		}()
		fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
		for d := range ch {
			if m := fqName.FindStringSubmatch(d.String()); m != nil {
				declared[m[1]] = true
			}
		}
		names := regexp.MustCompile(`\b((?:keeper|go|process)_[a-z0-9_]+)`)
		for _, file := range []string{"keeper.rules.yml", "keeper.dashboard.json"} {
			data, err := os.ReadFile(filepath.Join("..", "examples", "monitoring", file))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range names.FindAllStringSubmatch(string(data), -1) {
				name := m[1]
				family := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
				if !strings.Contains(scraped, "\n"+name) && !declared[family] {
					t.Errorf("%s names %s, which keeper does not export", file, name)
				}
			}
		}
		if err := r.stop(); err != nil {
			t.Error(err)
		}
	})
}
