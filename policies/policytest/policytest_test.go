package policytest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPassingFile(t *testing.T) {
	r := RunFiles([]string{"testdata/pass.test.yaml"})
	var out strings.Builder
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("report not OK:\n%s", out.String())
	}
	passed, failed, broken := r.Counts()
	if passed != 7 || failed != 0 || broken != 0 {
		t.Errorf("counts = %d %d %d, want 7 0 0", passed, failed, broken)
	}
	if !strings.HasSuffix(out.String(), "  PASS stale data plans nothing\n7 passed, 0 failed\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestFailingFile(t *testing.T) {
	r := RunFiles([]string{"testdata/fail.test.yaml"})
	if r.OK() {
		t.Fatal("a failing file reported OK")
	}
	res := r.Files[0].Tests
	if len(res) != 2 || res[0].Passed || !res[1].Passed {
		t.Fatalf("results = %+v", res)
	}
	want := []string{
		"expected action (line 14): policy \"repay-usdc\", target 4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T: differs from the planned one:\n" +
			"    steps[0].params.repayParams[0].amount: want 1500000000, got 1800000000",
		"expected action (line 17): policy \"sweep\", target 4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R: not planned (its condition did not hold)",
		"unexpected action: policy \"low-health\", target 4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T, kind alert:\n" +
			"    reason: \"loan 4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T at health 0.0250\"",
	}
	if !slices.Equal(res[0].Problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(res[0].Problems, "\n"), strings.Join(want, "\n"))
	}
	var out strings.Builder
	_ = r.Write(&out)
	if !strings.Contains(out.String(), "  FAIL wrong amount, missing and unexpected actions (testdata/fail.test.yaml:3:5)\n") ||
		!strings.HasSuffix(out.String(), "1 passed, 1 failed\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestBadFile(t *testing.T) {
	r := RunFiles([]string{"testdata/bad.test.yaml", "testdata/missing.test.yaml"})
	if r.OK() || len(r.Files) != 2 || r.Files[0].Err == nil || r.Files[1].Err == nil {
		t.Fatalf("report = %+v", r)
	}
	want := []string{
		`testdata/bad.test.yaml:4:10: test "typos": "yesterday" is not an RFC 3339 time such as 2025-06-01T12:00:00Z`,
		`testdata/bad.test.yaml:7:19: test "typos": observations.loans[0]: unknown field "adress" in loan (did you mean "address"?)`,
	}
	got := strings.Split(r.Files[0].Err.Error(), "\n")
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing error %s\ngot:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) < 10 {
		t.Errorf("got %d errors, want every problem at once:\n%s", len(got), strings.Join(got, "\n"))
	}
	if !strings.Contains(r.Files[1].Err.Error(), "no such file") {
		t.Errorf("missing file: %v", r.Files[1].Err)
	}
}

// TestLongUnknownKeyIsNotQuoted pastes a private key as a field of a test's loan: the error names
// the field by its length, not its text.
func TestLongUnknownKeyIsNotQuoted(t *testing.T) {
	const secret = "2RC5QvT9s3kVn1bQxYp8LmZ7wHfJcDaEgUoRiKtNyBzXq4WeSdFgHjKlMnBvCxZaQwErTy"
	dir := t.TempDir()
	policies, err := os.ReadFile("testdata/policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	test := "policy_files: [policies.yaml]\ntests:\n  - name: pasted\n    observations:\n      loans:\n        - loan: { " + secret + ": x }\n"
	for name, data := range map[string][]byte{"policies.yaml": policies, "k.test.yaml": []byte(test)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := RunFiles([]string{filepath.Join(dir, "k.test.yaml")})
	if len(r.Files) != 1 || r.Files[0].Err == nil {
		t.Fatalf("report = %+v, want the file's error", r)
	}
	msg := r.Files[0].Err.Error()
	if strings.Contains(msg, "QvT9s3kVn1bQ") || !strings.Contains(msg, "unknown field a value of 70 characters in loan") {
		t.Errorf("error %q", msg)
	}
}
