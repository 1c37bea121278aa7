package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestE2EPlanLikeTerraform runs plan once auto-repay has something to do:
// the plan ends with a summary line, --detailed-exitcode exits 3, --json
// keys are snake_case (a request keeps the market API's own body), and
// --capture writes per policy a `keeper test` file that passes as written.
func TestE2EPlanLikeTerraform(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 10)
	cfg := w.config(t, "plan", []string{autoRepay, claimWithdrawals})
	captured := filepath.Join(w.dir, "captured")
	r := runKeeper(t, w.dir, "plan", "--config", cfg, "--detailed-exitcode", "--capture", captured)
	r.wantExit(t, 3)
	if !regexp.MustCompile(`(?m)^1 action: 1 repay; 2 policies nothing to do$`).MatchString(r.stdout) {
		t.Errorf("plan's summary line is missing or wrong:\n%s", r.stdout)
	}
	files, _ := filepath.Glob(filepath.Join(captured, "*.test.yaml"))
	if len(files) != 3 {
		t.Fatalf("captured %v, want one test per policy (3)", files)
	}
	for _, f := range files {
		out := runKeeper(t, w.dir, "test", f)
		if out.code != 0 {
			data, _ := os.ReadFile(f)
			t.Errorf("keeper test %s: exit %d\n%s\n%s\nfile:\n%s", f, out.code, out.stdout, out.stderr, data)
		}
	}
	if data, err := os.ReadFile(filepath.Join(captured, "auto-repay.test.yaml")); err != nil || !strings.Contains(string(data), "policy: auto-repay") {
		t.Errorf("auto-repay's capture lacks its repay: %v\n%s", err, data)
	}

	js := runKeeper(t, w.dir, "plan", "--config", cfg, "--json").wantExit(t, 0).stdout
	var plans []map[string]any
	if err := json.Unmarshal([]byte(js), &plans); err != nil {
		t.Fatalf("plan --json: %v", err)
	}
	checkSnakeKeys(t, plans, "")
}

// base58Key matches a base58 public key.
var base58Key = regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`)

// checkSnakeKeys fails for a key of v that is not snake_case, outside the
// market requests (the API's own bodies); keys that are addresses (maps by
// mint or account) are data, not names.
func checkSnakeKeys(t *testing.T, v any, path string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.IndexFunc(k, unicode.IsUpper) >= 0 && !base58Key.MatchString(k) {
				t.Errorf("--json: key %s.%s is not snake_case", path, k)
			}
			if k != "request" {
				checkSnakeKeys(t, e, path+"."+k)
			}
		}
	case []any:
		for _, e := range x {
			checkSnakeKeys(t, e, path+"[]")
		}
	}
}
