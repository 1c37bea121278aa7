package policytest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/policies"
)

// Report is the outcome of running test files.
type Report struct {
	Files []FileResult
}

// FileResult is the outcome of one test file.
type FileResult struct {
	File string
	// Err is set when the file or its policy files could not be loaded;
	// no test ran then. It is a strictyaml.Errors or a policies.Errors.
	Err   error
	Tests []TestResult
}

// TestResult is the outcome of one test.
type TestResult struct {
	Name         string
	Line, Column int
	Passed       bool
	// Problems explain a failure, one per line: missing, differing and
	// unexpected actions and skips, expected against got.
	Problems []string
}

// OK reports whether every file loaded and every test passed.
func (r *Report) OK() bool {
	_, failed, broken := r.Counts()
	return failed == 0 && broken == 0
}

// Counts returns how many tests passed and failed, and how many files
// could not be loaded.
func (r *Report) Counts() (passed, failed, broken int) {
	for _, f := range r.Files {
		if f.Err != nil {
			broken++
		}
		for _, t := range f.Tests {
			if t.Passed {
				passed++
			} else {
				failed++
			}
		}
	}
	return passed, failed, broken
}

// RunFiles reads and runs every test file in paths, in order. Policy files
// are read relative to their test file.
func RunFiles(paths []string) *Report {
	r := &Report{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			r.Files = append(r.Files, FileResult{File: p, Err: fmt.Errorf("reading test file: %w", err)})
			continue
		}
		dir := filepath.Dir(p)
		r.Files = append(r.Files, Run(p, data, func(name string) ([]byte, error) {
			return os.ReadFile(filepath.Join(dir, name))
		}))
	}
	return r
}

// Run runs the tests of one test file, named file, whose contents are
// data; readPolicy reads a policy file named in policy_files.
func Run(file string, data []byte, readPolicy func(name string) ([]byte, error)) FileResult {
	res := FileResult{File: file}
	tests, ps, err := load(file, data, readPolicy)
	if err != nil {
		res.Err = err
		return res
	}
	for _, tc := range tests {
		res.Tests = append(res.Tests, runTest(tc, ps))
	}
	return res
}

// load parses a test file and its policy files.
func load(file string, data []byte, readPolicy func(string) ([]byte, error)) ([]*testCase, []*policies.Policy, error) {
	root, err := strictyaml.ParseDocument(file, data)
	if err != nil {
		return nil, nil, err
	}
	var f fileYAML
	if errs := strictyaml.Decode(file, root, &f, strictyaml.Options{}); len(errs) > 0 {
		return nil, nil, errs
	}
	ps, err := loadPolicies(file, f.PolicyFiles, readPolicy)
	if err != nil {
		return nil, nil, err
	}
	l := &loader{file: file, policy: map[string]*policies.Policy{}}
	for _, p := range ps {
		l.policy[p.Name] = p
	}
	if len(f.Tests) == 0 {
		l.fail(root, "", "tests is required: a list of tests")
	}
	var tests []*testCase
	for i := range f.Tests {
		tests = append(tests, l.build(strictyaml.Find(root, "tests", i), &f.Tests[i]))
	}
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *strictyaml.Error) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
		})
		return nil, nil, l.errs
	}
	return tests, ps, nil
}

// loadPolicies reads and parses the policy files a test file names.
func loadPolicies(file string, names []string, readPolicy func(string) ([]byte, error)) ([]*policies.Policy, error) {
	if len(names) == 0 {
		return nil, strictyaml.Errors{&strictyaml.Error{File: file, Msg: "policy_files is required: the policy files under test, relative to this file"}}
	}
	srcs := make([]policies.Source, 0, len(names))
	for _, n := range names {
		data, err := readPolicy(n)
		if err != nil {
			return nil, fmt.Errorf("%s: policy_files: %w", file, err)
		}
		srcs = append(srcs, policies.Source{Name: filepath.Join(filepath.Dir(file), n), Data: data})
	}
	return policies.ParseAll(srcs)
}

// runTest evaluates every enabled policy and compares.
func runTest(tc *testCase, ps []*policies.Policy) TestResult {
	var got []policies.Action
	var skips []policies.Skip
	var skipPolicy []string
	for _, p := range ps {
		if !p.Enabled || tc.only != nil && !slices.Contains(tc.only, p.Name) {
			continue
		}
		state := &policies.State{PendingSince: tc.pending[p.Name]}
		res, err := policies.Evaluate(p, tc.obs, tc.now, tc.history[p.Name], state)
		if err != nil {
			return TestResult{Name: tc.name, Line: tc.line, Column: tc.col, Problems: []string{err.Error()}}
		}
		got = append(got, res.Actions...)
		for _, s := range res.Skipped {
			skips = append(skips, s)
			skipPolicy = append(skipPolicy, p.Name)
		}
	}
	c := &comparison{got: got, used: make([]bool, len(got)), skips: skips, skipPolicy: skipPolicy}
	for i := range tc.expect {
		c.expectation(&tc.expect[i])
	}
	c.unexpected()
	if tc.checkSkip {
		c.compareSkips(tc.skipped)
	}
	return TestResult{Name: tc.name, Line: tc.line, Column: tc.col, Passed: len(c.problems) == 0, Problems: c.problems}
}

// requestJSON returns an action's request body as decoded JSON.
func requestJSON(a *policies.Action) any {
	body, err := json.Marshal(a.Request.Body())
	if err != nil {
		return nil
	}
	var v any
	if unmarshalNumbers(body, &v) != nil {
		return nil
	}
	return v
}

// describe names an action in messages.
func describe(a *policies.Action) string {
	return fmt.Sprintf("policy %q, target %s, kind %s", a.Policy, a.Target, a.Kind)
}

func indent(lines []string) string {
	return "    " + strings.Join(lines, "\n    ")
}
