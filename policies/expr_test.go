package policies

import (
	"errors"
	"testing"
)

// TestExpressionPositions checks that a compile error inside `when` is
// reported at its place in the file, for every scalar style. Each case's
// error is at "helth": the wanted column is counted by hand on the line.
func TestExpressionPositions(t *testing.T) {
	tests := []struct {
		name      string
		when      []string // the when line(s), indented under the policy
		line, col int
	}{
		// Line 6 is the when line. "    when: loan.helth < 0.1": the value starts at column 11, "helth"
		// 5 runes in.
		{"plain", []string{"when: loan.helth < 0.1"}, 6, 16},
		// "    when: \"loan.helth\"": the quote is at 11, the value at 12.
		{"double quoted", []string{`when: "loan.helth < 0.1"`}, 6, 17},
		{"single quoted", []string{`when: 'loan.helth < 0.1'`}, 6, 17},
		// literal block: its lines are indented 6; line 2 of the expression is source line 8, where
		// "  loan.helth" puts "helth" 7 runes in: column 6 + 7 + 1.
		{"literal block", []string{"when: |", "  loan.health < 0.1 &&", "    loan.helth > 0"}, 8, 14},
		// folded block: "loan.health < 0.1 && loan.helth > 0" folds to one line; "helth" is 26 runes in,
		// 5 runes into source line 8 (indented 6).
		{"folded block", []string{"when: >", "  loan.health < 0.1 &&", "  loan.helth > 0"}, 8, 12},
		// multi-line plain scalar: folded like the above; line 7 is indented 6.
		{"plain over two lines", []string{"when: loan.health < 0.1 &&", "  loan.helth > 0"}, 7, 12},
		// unicode before the error counts in runes: "é" is one column; "helth" is 19 runes into a value
		// starting at column 12.
		{"runes", []string{`when: "'é' == 'é' && loan.helth > 0"`}, 6, 31},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := append([]string{"name: p", "kind: repay", `schedule: "@hourly"`, "params: {target_health: 0.2, max_amount: 1}"}, tc.when...)
			_, err := Parse("f.yaml", []byte(policyYAML(lines...)))
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("error = %v, want one", err)
			}
			e := errs[0]
			if e.Line != tc.line || e.Column != tc.col || e.Policy != "p" {
				t.Errorf("error at %d:%d (%s), want %d:%d", e.Line, e.Column, e, tc.line, tc.col)
			}
			if want := `when: LoanFacts has no field "helth" (did you mean "health"?)`; e.Msg != want {
				t.Errorf("message = %q, want %q", e.Msg, want)
			}
		})
	}
}

// TestPureBuiltins checks that expressions cannot read the clock.
func TestPureBuiltins(t *testing.T) {
	for _, when := range []string{`date("2025-01-01") != nil`, `timezone("UTC") != nil`} {
		_, err := Parse("f.yaml", []byte(policyYAML("name: p", "kind: repay", `schedule: "@hourly"`,
			"params: {target_health: 0.2, max_amount: 1}", "when: '"+when+"'")))
		if err == nil {
			t.Errorf("%s compiled", when)
		}
	}
}

// TestWhenRuntimeError checks that an expression failing on one target's
// facts skips that target only.
func TestWhenRuntimeError(t *testing.T) {
	p := repayPolicy(t, "{target_health: 0.25, max_amount: 5000000000}", "when: loan.ledgers[1].health < 0.1")
	res := evaluate(t, p, observe(lowLoan("a")))
	if len(res.Actions) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != SkipError {
		t.Fatalf("result %+v, want one error skip", res)
	}
	if want := "when: index out of range: 1 (array length is 1) (1:13)"; res.Skipped[0].Detail != want {
		t.Errorf("detail = %q, want %q", res.Skipped[0].Detail, want)
	}
}
