package deptest

import (
	"os"
	"strings"
	"testing"
)

// TestImportedModulesAreDirect checks go.mod against the sources: a module
// that a non-test file imports is a direct requirement, not "// indirect"
// (what `go mod tidy` writes), so go.mod says truly what keeper chose.
func TestImportedModulesAreDirect(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	indirect := map[string]bool{} // module path → marked indirect
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fields) < 2 || !strings.Contains(fields[0], ".") {
			continue
		}
		indirect[fields[0]] = strings.HasSuffix(strings.TrimSpace(line), "// indirect")
	}
	for dir, pkgs := range imports(t) {
		for _, p := range pkgs {
			if mod, ok := moduleOf(indirect, p); ok && indirect[mod] {
				t.Errorf("%s imports %s, but go.mod marks %s indirect: run go mod tidy", dir, p, mod)
			}
		}
	}
}

// moduleOf is the required module that provides package p: the longest
// module path that is p or a prefix of it.
func moduleOf(modules map[string]bool, p string) (string, bool) {
	best := ""
	for m := range modules {
		if (p == m || strings.HasPrefix(p, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best, best != ""
}
