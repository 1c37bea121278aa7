package deptest

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runtimeDirs are the packages of keeper's runtime: they hold their
// dependencies (market client, signer, chain client, journal) behind the
// interfaces they declare as consumers.
var runtimeDirs = []string{"keeper", "keeper/internal/action"}

// seamPackages are the packages whose interfaces are the runtime's seams:
// the runtime's own, and the watcher's reader it hands the chain client to.
var seamPackages = map[string]string{"keeper": "", "keeper/internal/action": "action", "keeper/watch": "watch"}

// concreteDeps are the concrete types behind the seams.
var concreteDeps = map[string]bool{"api.Client": true, "chain.Client": true, "journal.Journal": true, "signer.Signer": true}

// TestRuntimeReachesNoCapabilityByTypeAssertion: the runtime asks its
// dependencies only for what their interfaces declare. A type assertion to
// another interface (a seam's, or a literal one) or to a dependency's
// concrete type would reach a capability the interface hides: a fake or a
// wrapper in a test then silently turns the capability off, and the
// interface no longer says what the runtime needs.
func TestRuntimeReachesNoCapabilityByTypeAssertion(t *testing.T) {
	files := parseFiles(t, 0)
	seams := seamInterfaces(files)
	for path, f := range files {
		if !slices.Contains(runtimeDirs, filepath.Dir(path)) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ta, ok := n.(*ast.TypeAssertExpr)
			if !ok || ta.Type == nil { // a type switch's .(type)
				return true
			}
			if name, bad := capability(ta.Type, seams); bad {
				t.Errorf("%s: a type assertion to %s reaches a capability; declare it on the interface instead", path, name)
			}
			return true
		})
	}
}

// seamInterfaces returns the interfaces declared in seamPackages, named as
// the runtime writes them ("Journal", "action.Log", "watch.Reader").
func seamInterfaces(files map[string]*ast.File) map[string]bool {
	out := map[string]bool{}
	for path, f := range files {
		qual, ok := seamPackages[filepath.Dir(path)]
		if !ok {
			continue
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.InterfaceType); ok {
					out[strings.TrimPrefix(qual+"."+ts.Name.Name, ".")] = true
				}
			}
		}
	}
	return out
}

// capability reports whether asserting to typ reaches a capability of a
// dependency, and how typ is written.
func capability(typ ast.Expr, seams map[string]bool) (string, bool) {
	switch e := typ.(type) {
	case *ast.InterfaceType:
		return "an interface literal", true
	case *ast.Ident:
		return e.Name, seams[e.Name]
	case *ast.SelectorExpr:
		name := exprName(e)
		return name, seams[name]
	case *ast.StarExpr:
		name := exprName(e.X)
		return "*" + name, concreteDeps[name]
	}
	return "", false
}

// exprName is "pkg.Name" for a selector, the name for an identifier.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	}
	return ""
}
