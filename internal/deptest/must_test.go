package deptest

import (
	"go/ast"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// solanaGo is the module whose Must* functions panic on a bad value.
const solanaGo = "github.com/gagliardetto/solana-go"

// mustOnSimState are the files whose Must* calls decode the simulator's own state (compiled
// from a scenario it checked), pending the simulator's rewrite (#34), which owns them: each
// leaves this list with its last such call (the test logs the entries that no longer need to be
// here, without failing, so that the rewrite and this list can land in either order).
var mustOnSimState = []string{
	"keeper/sim/api_build.go",
	"keeper/sim/api_collateral.go",
	"keeper/sim/api_quote.go",
	"keeper/sim/internal/programs/flash.go",
	"keeper/sim/internal/programs/loan.go",
	"keeper/sim/strategy_view.go",
}

// TestNoMustOnInput: no non-test code calls a Must* function of solana-go (which panics on a
// bad value) on anything but constants: a program or sysvar id written as a string literal is
// checked by every test that loads its package; a value read from a file, a flag, the market or
// the chain is decoded with the function that returns an error, so a bad one is an error
// where it was read, never a panic.
func TestNoMustOnInput(t *testing.T) {
	found := map[string]bool{}
	for path, f := range parseFiles(t, 0) {
		file, names := filepath.ToSlash(path), solanaImports(f)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Must") {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || !names[pkg.Name] || allLiterals(call.Args) {
				return true
			}
			found[file] = true
			if !slices.Contains(mustOnSimState, file) {
				t.Errorf("%s: %s.%s on a value that is not a literal: decode it with the function that returns an error", file, sel.X.(*ast.Ident).Name, sel.Sel.Name)
			}
			return true
		})
	}
	for _, file := range mustOnSimState {
		if !found[file] {
			t.Logf("%s no longer calls a Must* of solana-go on state: drop it from mustOnSimState", file)
		}
	}
}

// solanaImports returns the names f imports solana-go's packages under.
func solanaImports(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != solanaGo && !strings.HasPrefix(p, solanaGo+"/") {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if p == solanaGo {
			name = "solana"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = true
	}
	return out
}

// allLiterals reports whether every argument is a literal (a constant written in the code).
func allLiterals(args []ast.Expr) bool {
	for _, a := range args {
		if _, ok := a.(*ast.BasicLit); !ok {
			return false
		}
	}
	return true
}
