package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The shape limits of issue #13: a package is small enough to read as one
// concept, and a type small enough to hold one responsibility.
const (
	maxFilesPerPackage = 30
	maxMethodsPerType  = 12
)

// sources parses every non-test Go file of the module, by package directory.
func sources(t *testing.T) map[string][]*ast.File {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		out[rel] = append(out[rel], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPackageSize(t *testing.T) {
	for dir, files := range sources(t) {
		if len(files) > maxFilesPerPackage {
			t.Errorf("%s has %d non-test files, more than %d: split a concept into its own package", dir, len(files), maxFilesPerPackage)
		}
	}
}

func TestTypeSize(t *testing.T) {
	for dir, files := range sources(t) {
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
