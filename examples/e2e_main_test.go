package examples_test

import (
	"debug/buildinfo"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// buildKeeper runs `go build` of cmd/keeper into dir, with -race when the tests run with it.
func buildKeeper(dir string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	bin := filepath.Join(dir, "keeper")
	out, err := exec.Command(goCmd, buildArgs(bin)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/keeper: %w\n%s", err, out)
	}
	return bin, nil
}

// buildArgs are the arguments of `go build` that writes the keeper binary to bin.
func buildArgs(bin string) []string {
	args := []string{"build", "-o", bin}
	if raceBuild {
		args = append(args, "-race")
	}
	return append(args, "github.com/keeper-project/keeper/cmd/keeper")
}

// raceReport is the race detector's report in a keeper process's stderr, or "" when there is none.
func raceReport(stderr string) string {
	const mark = "WARNING: DATA RACE"
	i := strings.Index(stderr, mark)
	if i < 0 {
		return ""
	}
	return stderr[i:]
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

// TestE2EBinaryMatchesTheRaceDetector: under -race (CI) the binary the end-to-end tests run is
// built with the race detector too, so a race in the daemon fails them; without -race it is not.
func TestE2EBinaryMatchesTheRaceDetector(t *testing.T) {
	needBinary(t)
	info, err := buildinfo.ReadFile(keeperBin)
	if err != nil {
		t.Fatal(err)
	}
	race := false
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			race = true
		}
	}
	if race != raceBuild {
		t.Errorf("the keeper binary is built with -race %v, the tests with -race %v", race, raceBuild)
	}
}
