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
	const module = "github.com/keeper-project/keeper/"
	for _, s := range syms {
		pkg, name, ok := symbolPackage(s.Name, module)
		if !ok || !commandOnly(pkg) || elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		if name == "init" || strings.HasPrefix(name, "init.") && !strings.HasPrefix(name, "init.func") || strings.HasPrefix(name, "map.init.") {
			t.Errorf("%s has initialization code (%s): make its package-level values static or lazy", pkg, s.Name)
		}
	}
}

// commandOnly reports the packages only `keeper sim`, `run --sim` and `keeper test` run: the
// simulator and its packages, but chainsim and its runtime, whose tables are built at start
// (they were before the simulator was split), and policytest.
func commandOnly(pkg string) bool {
	switch {
	case pkg == "keeper/sim/chainsim" || strings.HasPrefix(pkg, "keeper/sim/chainsim/"):
		return false
	case pkg == "keeper/sim" || strings.HasPrefix(pkg, "keeper/sim/"):
		return true
	}
	return pkg == "policies/policytest"
}

// symbolPackage splits a symbol of the module into its package (relative to the module) and its
// name in the package; ok is false for other symbols and generic instantiations.
func symbolPackage(sym, module string) (pkg, name string, ok bool) {
	rest, ok := strings.CutPrefix(sym, module)
	if !ok || strings.Contains(rest, "[") {
		return "", "", false
	}
	slash := strings.LastIndex(rest, "/") + 1
	dot := strings.Index(rest[slash:], ".")
	if dot < 0 {
		return "", "", false
	}
	return rest[:slash+dot], rest[slash+dot+1:], true
}
