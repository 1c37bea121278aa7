package examples_test

import (
	"debug/elf"
	"strings"
	"testing"
)

// TestCommandOnlyPackagesDoNoStartupWork checks the built binary for package
// initialization code in packages the daemon never runs: every keeper
// command runs every linked package's initialization, and each one maps a
// 64 KB window of code into the daemon's resident set (docs/benchmarks.md,
// "Idle daemon memory").
func TestCommandOnlyPackagesDoNoStartupWork(t *testing.T) {
	needBinary(t)
	f, err := elf.Open(keeperBin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"keeper/sim", "policies/policytest"} {
		prefix := "github.com/keeper-project/keeper/" + pkg + "."
		for _, s := range syms {
			name, ok := strings.CutPrefix(s.Name, prefix)
			if ok && elf.ST_TYPE(s.Info) == elf.STT_FUNC && (name == "init" || strings.HasPrefix(name, "init.") && !strings.HasPrefix(name, "init.func") || strings.HasPrefix(name, "map.init.")) {
				t.Errorf("%s has initialization code (%s): make its package-level values static or lazy", pkg, s.Name)
			}
		}
	}
}
