package deptest

import (
	"go/ast"
	"go/parser"
	"testing"
)

// The shape limits of issue #13: a package is small enough to read as one
// concept, and a type small enough to hold one responsibility.
const (
	maxFilesPerPackage = 30
	maxMethodsPerType  = 12
)

func TestPackageSize(t *testing.T) {
	for dir, files := range parseSources(t, parser.SkipObjectResolution) {
		if len(files) > maxFilesPerPackage {
			t.Errorf("%s has %d non-test files, more than %d: split a concept into its own package", dir, len(files), maxFilesPerPackage)
		}
	}
}

func TestTypeSize(t *testing.T) {
	for dir, files := range parseSources(t, parser.SkipObjectResolution) {
		methods := map[string]int{}
		for _, f := range files {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil {
					methods[receiverName(fn.Recv.List[0].Type)]++
				}
			}
		}
		for name, n := range methods {
			if n > maxMethodsPerType {
				t.Errorf("%s.%s has %d methods, more than %d: give its concepts their own types", dir, name, n, maxMethodsPerType)
			}
		}
	}
}

// receiverName returns the type name of a method's receiver, without the
// pointer and type parameters.
func receiverName(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}
