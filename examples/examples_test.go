package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/policies/policytest"
)

// exampleConfigs returns the root config and every config.yaml under examples/ outside testdata.
func exampleConfigs(t *testing.T) []string {
	t.Helper()
	paths := []string{filepath.Join("..", "config.yaml")}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case !d.IsDir() && d.Name() == "config.yaml":
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking examples: %v", err)
	}
	return paths
}

// examplePolicyFiles returns examples/policies/*.yaml and the trigger examples
// (examples/triggers/*.yaml but its config), failing when there are none.
func examplePolicyFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("policies", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("example policy files: %v (found %d)", err, len(files))
	}
	triggered, err := filepath.Glob(filepath.Join("triggers", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range triggered {
		if filepath.Base(f) != "config.yaml" {
			files = append(files, f)
		}
	}
	return files
}

// exampleTestFileFor names the keeper test file of an example policy file.
func exampleTestFileFor(policyFile string) string {
	return filepath.Join("tests", strings.TrimSuffix(filepath.Base(policyFile), ".yaml")+".test.yaml")
}

// TestExampleConfigsPassCheck loads every example config and its policies the way
// `keeper check` does, and checks that together they load every example policy file.
func TestExampleConfigsPassCheck(t *testing.T) {
	loaded := map[string]bool{}
	for _, path := range exampleConfigs(t) {
		t.Run(path, func(t *testing.T) {
			cfg, err := config.LoadFile(path)
			if err != nil {
				t.Fatalf("config.LoadFile: %v", err)
			}
			names := make([]string, len(cfg.Notifiers))
			for i, n := range cfg.Notifiers {
				names[i] = n.Name
			}
			ps, err := keeper.LoadPolicies(cfg.Dir, cfg.Policies, names)
			if err != nil {
				t.Fatalf("keeper.LoadPolicies: %v", err)
			}
			if len(ps) == 0 {
				t.Fatalf("config %s loads no policies", path)
			}
			for _, p := range ps {
				abs, err := filepath.Abs(p.File)
				if err != nil {
					t.Fatalf("policy %q: %v", p.Name, err)
				}
				loaded[abs] = true
			}
		})
	}
	for _, f := range examplePolicyFiles(t) {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		if !loaded[abs] {
			t.Errorf("example policy file %s is loaded by no example config", f)
		}
	}
}

// TestEveryExamplePolicyHasTestFile pairs examples/policies/<name>.yaml (and
// examples/triggers/<name>.yaml) with examples/tests/<name>.test.yaml, which must test exactly that policy file.
func TestEveryExamplePolicyHasTestFile(t *testing.T) {
	want := map[string]bool{}
	for _, pf := range examplePolicyFiles(t) {
		tf := exampleTestFileFor(pf)
		want[tf] = true
		data, err := os.ReadFile(tf)
		if err != nil {
			t.Errorf("policy file %s has no test file: %v", pf, err)
			continue
		}
		var head struct {
			PolicyFiles []string `yaml:"policy_files"`
		}
		if err := yaml.Unmarshal(data, &head); err != nil {
			t.Errorf("%s: %v", tf, err)
			continue
		}
		wantFiles := []string{"../" + filepath.ToSlash(pf)}
		if !slices.Equal(head.PolicyFiles, wantFiles) {
			t.Errorf("%s: policy_files = %q, want %q", tf, head.PolicyFiles, wantFiles)
		}
	}
	tests, err := filepath.Glob(filepath.Join("tests", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tf := range tests {
		if !want[tf] {
			t.Errorf("%s tests no example policy file (want tests/<policy>.test.yaml)", tf)
		}
	}
}

// TestExampleTestFilesPass runs every example test file as `keeper test` does.
func TestExampleTestFilesPass(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("tests", "*.test.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("example test files: %v (found %d)", err, len(files))
	}
	report := policytest.RunFiles(files)
	if !report.OK() {
		var b strings.Builder
		if err := report.Write(&b); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("example policy tests fail:\n%s", b.String())
	}
	for _, f := range report.Files {
		// Each file covers at least acting, waiting and one limit.
		if len(f.Tests) < 3 {
			t.Errorf("%s has %d tests, want at least 3", f.File, len(f.Tests))
		}
	}
	if passed, _, _ := report.Counts(); passed == 0 {
		t.Fatal("no example policy test ran")
	}
}

// TestExampleTestFilesCatchWrongExpectations is the negative control: a copy of
// an example test file with one wrong expected value must fail, in that test
// only, naming the value it wanted and the one the policy planned.
func TestExampleTestFilesCatchWrongExpectations(t *testing.T) {
	cases := []struct {
		name, policy, old, new, want string
	}{
		{"repay amount", "auto-repay", "amount: 151746575,", "amount: 151746576,", "want 151746576, got 151746575"},
		{"sweep amount", "vault-upkeep", "request: { amount: 40000000000, strategy", "request: { amount: 40000000001, strategy",
			"want 40000000001, got 40000000000"},
		{"rebalance tick", "rebalance", "tickLowerIndex: -20380", "tickLowerIndex: -20370", "want -20370, got -20380"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policyFile := filepath.Join("policies", tc.policy+".yaml")
			data, err := os.ReadFile(exampleTestFileFor(policyFile))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), tc.old); n != 1 {
				t.Fatalf("%q occurs %d times in %s, want once", tc.old, n, exampleTestFileFor(policyFile))
			}
			dir := t.TempDir()
			copyExampleFile(t, policyFile, filepath.Join(dir, policyFile))
			wrong := filepath.Join(dir, exampleTestFileFor(policyFile))
			writeExampleFile(t, wrong, []byte(strings.Replace(string(data), tc.old, tc.new, 1)))

			report := policytest.RunFiles([]string{wrong})
			passed, failed, broken := report.Counts()
			if report.OK() || failed != 1 || broken != 0 || passed == 0 {
				t.Fatalf("passed, failed, broken = %d, %d, %d; want one failure and the other tests passing", passed, failed, broken)
			}
			var problems []string
			for _, tr := range report.Files[0].Tests {
				if !tr.Passed {
					problems = tr.Problems
				}
			}
			if got := strings.Join(problems, "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("problems of the failing test:\n%s\nwant them to contain %q", got, tc.want)
			}
		})
	}
}

// copyExampleFile copies src to dst, creating dst's folder.
func copyExampleFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeExampleFile(t, dst, data)
}

// writeExampleFile writes data to path, creating its folder.
func writeExampleFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
