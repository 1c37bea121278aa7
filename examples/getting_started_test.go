package examples_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestGettingStartedQuotesTheShippedFiles checks what docs/getting-started.md quotes against the
// files a new user runs it with: the number of policies config.yaml loads (check's and the daemon's
// counts), the number of example tests `keeper test examples/tests/*.yaml` runs, and the mints and
// program ids `keeper sim` prints, which config.yaml names.
func TestGettingStartedQuotesTheShippedFiles(t *testing.T) {
	doc := readDoc(t, "getting-started.md")
	cfgText, err := os.ReadFile(filepath.Join("..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Policies []string }
	if err := yaml.Unmarshal(cfgText, &cfg); err != nil {
		t.Fatal(err)
	}
	total, enabled := 0, 0
	for _, glob := range cfg.Policies {
		for _, file := range globFiles(t, filepath.Join("..", glob)) {
			var f struct{ Policies []struct{ Enabled *bool } }
			readYAML(t, file, &f)
			for _, p := range f.Policies {
				total++
				if p.Enabled == nil || *p.Enabled {
					enabled++
				}
			}
		}
	}
	quoted := 0
	for _, m := range regexp.MustCompile(`(\d+) policies \((\d+) enabled\)|policies=(\d+)`).FindAllStringSubmatch(doc, -1) {
		quoted++
		if m[3] != "" && m[3] != strconv.Itoa(enabled) || m[1] != "" && (m[1] != strconv.Itoa(total) || m[2] != strconv.Itoa(enabled)) {
			t.Errorf("getting-started.md says %q; config.yaml loads %d policies, %d enabled", m[0], total, enabled)
		}
	}
	tests := 0
	for _, file := range globFiles(t, filepath.Join("tests", "*.yaml")) {
		var f struct{ Tests []yaml.Node }
		readYAML(t, file, &f)
		tests += len(f.Tests)
	}
	for _, m := range regexp.MustCompile(`(\d+) passed, 0 failed`).FindAllStringSubmatch(doc, -1) {
		quoted++
		if m[1] != strconv.Itoa(tests) {
			t.Errorf("getting-started.md says %q; examples/tests hold %d tests", m[0], tests)
		}
	}
	ids := regexp.MustCompile(`(?m)^  mint +\S+ +(\S+)$|market (Sim\w+), earn (Sim\w+), dex-a (Sim\w+), dex-b (Sim\w+)`)
	for _, m := range ids.FindAllStringSubmatch(doc, -1) {
		quoted++
		for _, addr := range m[1:] {
			if addr != "" && !strings.Contains(string(cfgText), addr) {
				t.Errorf("getting-started.md quotes %s (%q), which config.yaml does not name", addr, m[0])
			}
		}
	}
	if quoted < 6 {
		t.Errorf("found %d quoted figures in getting-started.md; the test no longer reads them", quoted)
	}
}

// globFiles returns the files pattern matches, failing the test when none does.
func globFiles(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s matches no file (%v)", pattern, err)
	}
	return files
}

// readYAML decodes file into v.
func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestDocsWriteAmountsByTheRule: what the docs quote of keeper's output writes token amounts as
// keeper does (internal/amounts): no trailing zero after the decimal point ("10 SOL", never
// "10.00 SOL"). USD values keep two decimals, and sizes (MiB) are not amounts.
func TestDocsWriteAmountsByTheRule(t *testing.T) {
	amount := regexp.MustCompile(`(?:^|[^\d.])(\d+\.\d*0) ([A-Z][A-Za-z]*)\b`)
	docs := append(globFiles(t, filepath.Join("..", "docs", "*.md")), globFiles(t, filepath.Join("..", "docs", "use-cases", "*.md"))...)
	for _, file := range docs {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range amount.FindAllStringSubmatch(line, -1) {
				if m[2] != "USD" && !strings.HasSuffix(m[2], "B") {
					t.Errorf("%s:%d quotes %q; keeper writes amounts without trailing zeros", file, i+1, m[1]+" "+m[2])
				}
			}
		}
	}
}
