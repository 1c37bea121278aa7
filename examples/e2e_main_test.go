package examples_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The keeper binary the end-to-end tests run, built once by TestMain. Both stay zero under -short.
var (
	keeperBin string
	buildErr  error
)

// TestMain builds the keeper binary once for the end-to-end tests (not under -short), runs the
// tests, and removes the binary. Started with rusageEnv set, the test binary is the small wrapper
// BenchmarkE2ERunMemory measures keeper through (runForRusage), and runs no test.
func TestMain(m *testing.M) {
	if path := os.Getenv(rusageEnv); path != "" {
		os.Exit(runForRusage(path, os.Args[1:]))
	}
	flag.Parse()
	os.Exit(runWithBinary(m))
}

// runWithBinary builds the binary into a temporary folder unless -short, then runs the tests.
func runWithBinary(m *testing.M) int {
	if testing.Short() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "keeper-e2e-bin-")
	if err != nil {
		buildErr = fmt.Errorf("temporary folder for the binary: %w", err)
		return m.Run()
	}
	defer os.RemoveAll(dir)
	keeperBin, buildErr = buildKeeper(dir)
	return m.Run()
}

// buildKeeper runs `go build` of cmd/keeper into dir.
func buildKeeper(dir string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	bin := filepath.Join(dir, "keeper")
	out, err := exec.Command(goCmd, "build", "-o", bin, "github.com/keeper-project/keeper/cmd/keeper").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/keeper: %w\n%s", err, out)
	}
	return bin, nil
}

// needBinary skips an end-to-end test under -short and fails it when the binary could not be built.
func needBinary(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: builds and runs the keeper binary (skipped under -short)")
	}
	if buildErr != nil {
		t.Fatalf("no keeper binary: %v", buildErr)
	}
}
