package deptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// listed is one package as `go list -deps -json` describes it.
type listed struct {
	ImportPath string
	Standard   bool
	Imports    []string
}

// deps returns every package the patterns' non-test code links, the
// patterns' own packages included, by import path.
func deps(t *testing.T, patterns ...string) map[string]listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, patterns...)...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", patterns, err, stderr.String())
	}
	all := map[string]listed{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		all[p.ImportPath] = p
	}
	return all
}

// networkImporters are the packages outside the standard library allowed to
// import net or net/http into the deps of a package that does no network
// I/O: solana-go's logging (zap and its Stackdriver encoder) links them, and
// nothing keeper calls reaches a socket through them.
var networkImporters = []string{"go.uber.org/zap", "github.com/blendle/zapdriver", "github.com/streamingfast/logging"}

// networkPackages are the project's and its libraries' packages that talk to
// the network.
var networkPackages = []string{module + "/keeper/market/api", module + "/keeper/chain", module + "/keeper/notify",
	module + "/keeper/sim", module + "/keeper/watch", "github.com/gagliardetto/solana-go/rpc"}

func TestTransitiveDependencies(t *testing.T) {
	for _, rule := range []struct {
		pattern, why string
		bad          func(p listed) bool
	}{
		{"./keeper/market", "the spec's model is the standard library only (and encoding/json/v2's mirror) and does no I/O", func(p listed) bool {
			return !p.Standard && p.ImportPath != module+"/keeper/market" && !strings.HasPrefix(p.ImportPath, jsonV2) ||
				p.ImportPath == "net" || p.ImportPath == "net/http"
		}},
		{"./keeper/journal/...", "the journal links no other project package", func(p listed) bool {
			return strings.HasPrefix(p.ImportPath, module+"/") && !strings.HasPrefix(p.ImportPath, module+"/keeper/journal")
		}},
		{"./policies/...", "policies decide from an Observation and do no network I/O", noNetwork},
		{"./signer/...", "signer does no network I/O", noNetwork},
		{"./signer/...", "signer links no project code but its own", func(p listed) bool {
			return strings.HasPrefix(p.ImportPath, module+"/") && !strings.HasPrefix(p.ImportPath, module+"/signer")
		}},
	} {
		for path, p := range deps(t, rule.pattern) {
			if rule.bad(p) {
				t.Errorf("%s links %s: %s", rule.pattern, path, rule.why)
			}
		}
	}
}

// noNetwork reports a package that talks to the network, or that imports
// net or net/http without being the standard library or an allowed
// library's logging.
func noNetwork(p listed) bool {
	for _, n := range networkPackages {
		if p.ImportPath == n || strings.HasPrefix(p.ImportPath, n+"/") {
			return true
		}
	}
	network := slices.Contains(p.Imports, "net") || slices.Contains(p.Imports, "net/http")
	return network && !p.Standard && !slices.Contains(networkImporters, p.ImportPath)
}
