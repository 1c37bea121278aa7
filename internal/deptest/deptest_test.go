package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/keeper-project/keeper"

// jsonV2 is the module that mirrors encoding/json/v2 (the standard library's from Go 1.27, where
// importing it with the jsonv2 experiment aliases the standard library): keeper/market decodes the
// market's answers with it, in half encoding/json's CPU (docs/benchmarks.md).
const jsonV2 = "github.com/go-json-experiment/json"

// redactPkg is how every package prints URLs and scrubs them from errors: the one project package
// keeper/market's client may import, itself the standard library only.
const redactPkg = module + "/internal/redact"

// parseSources parses every non-test Go file of the module with mode, by
// package directory relative to the module root.
func parseSources(t *testing.T, mode parser.Mode) map[string][]*ast.File {
	t.Helper()
	out := map[string][]*ast.File{}
	for path, f := range parseFiles(t, mode) {
		dir := filepath.Dir(path)
		out[dir] = append(out[dir], f)
	}
	return out
}

// parseFiles parses every non-test Go file of the module with mode, by path
// relative to the module root.
func parseFiles(t *testing.T, mode parser.Mode) map[string]*ast.File {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
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
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[rel] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no packages found")
	}
	return out
}

// imports maps each package directory (relative to the module root) to the
// packages its non-test files import directly.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for dir, files := range parseSources(t, parser.ImportsOnly) {
		for _, f := range files {
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !slices.Contains(out[dir], p) {
					out[dir] = append(out[dir], p)
				}
			}
		}
	}
	return out
}

func under(dir, prefix string) bool {
	return dir == prefix || strings.HasPrefix(dir, prefix+string(os.PathSeparator))
}

func TestDependencyDirection(t *testing.T) {
	for dir, imps := range imports(t) {
		for _, imp := range imps {
			project := strings.HasPrefix(imp, module+"/")
			switch {
			case under(dir, "keeper/market") && (project && imp != module+"/keeper/market" && imp != redactPkg || !project && strings.Contains(imp, ".") && !strings.HasPrefix(imp, jsonV2)):
				t.Errorf("%s imports %s: keeper/market (the model and the API client) uses the standard library only, encoding/json/v2's mirror to decode, and internal/redact to print URLs", dir, imp)
			case under(dir, "internal/redact") && (project || strings.Contains(imp, ".")):
				t.Errorf("%s imports %s: internal/redact, which every client prints its URLs with, is the standard library only", dir, imp)
			case under(dir, "keeper/journal") && project && !strings.HasPrefix(imp, module+"/keeper/journal/"):
				t.Errorf("%s imports %s: keeper/journal imports no other project package (its own subpackages only)", dir, imp)
			case (under(dir, "policies") || under(dir, "signer")) && (imp == "net" || strings.HasPrefix(imp, "net/") || strings.Contains(imp, "solana-go/rpc")):
				t.Errorf("%s imports %s: policies and signer do no network I/O", dir, imp)
			case under(dir, "signer") && project && !strings.HasPrefix(imp, module+"/signer"):
				t.Errorf("%s imports %s: signer stands alone (only key material, no project code)", dir, imp)
			case under(dir, "keeper/sim/chainsim/svm") && project && !strings.HasPrefix(imp, module+"/keeper/sim/chainsim/svm"):
				t.Errorf("%s imports %s: the chain's runtime (svm) imports no other project package; the chain is built on it", dir, imp)
			case under(dir, "keeper/sim") && dir != "keeper/sim" && imp == module+"/keeper/sim":
				t.Errorf("%s imports %s: the simulator is built on its subpackages, not the other way", dir, imp)
			case under(dir, "keeper/sim/scenario") && strings.HasPrefix(imp, module+"/keeper/sim"):
				t.Errorf("%s imports %s: the scenario format is data and imports nothing of the simulator", dir, imp)
			case under(dir, "keeper/sim/ids") && project && imp != module+"/keeper/sim/internal/lazy":
				t.Errorf("%s imports %s: the fixed ids and keys import no other project package", dir, imp)
			case under(dir, "keeper/sim/internal/programs") && slices.Contains([]string{module + "/keeper/sim/internal/genesis",
				module + "/keeper/sim/internal/apiwire", module + "/keeper/sim/internal/txbuild", module + "/keeper/sim/faults", module + "/keeper/sim/scenario"}, imp):
				t.Errorf("%s imports %s: the market's programs know nothing of scenarios, their compiler, the API or faults", dir, imp)
			case (under(dir, "keeper/sim/internal/state") || under(dir, "keeper/sim/internal/instr") || under(dir, "keeper/sim/internal/units") || under(dir, "keeper/sim/internal/lazy")) &&
				strings.HasPrefix(imp, module+"/keeper/sim") && !slices.Contains([]string{"instr", "lazy"}, strings.TrimPrefix(imp, module+"/keeper/sim/internal/")):
				t.Errorf("%s imports %s: account data, instruction data, units and lazy values are the simulator's leaves", dir, imp)
			case under(dir, "keeper/sim/chainsim/internal/jsonrpc") && project:
				t.Errorf("%s imports %s: the JSON-RPC envelope imports no other project package", dir, imp)
			case under(dir, "keeper/sim/inject") && project:
				t.Errorf("%s imports %s: fault injection (keeper/sim/inject) imports no other project package; the simulated services use it", dir, imp)
			case !under(dir, "keeper/sim") && (imp == "testing" || imp == "net/http/httptest" || strings.HasPrefix(imp, "testing/")):
				t.Errorf("%s imports %s outside tests: only keeper/sim may", dir, imp)
			}
		}
	}
}

func TestConsumersDeclareInterfaces(t *testing.T) {
	// The leaf packages must not depend on the runtime that consumes them.
	for dir, imps := range imports(t) {
		if dir == "keeper" || under(dir, "cmd") || under(dir, "examples") || under(dir, "internal/deptest") {
			continue
		}
		if slices.Contains(imps, module+"/keeper") {
			t.Errorf("%s imports the runtime package keeper; dependencies point the other way", dir)
		}
	}
}
