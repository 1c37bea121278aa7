package action

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/keeper-project/keeper/keeper/journal"
)

// TestEverySkipRuleHasItsOutcome reads the skip rules from the journal's
// rule.go (the constants under "Skipped:") and checks that each maps to an
// outcome of its own, so that a rule added later is not counted as
// something it is not (a superseded action was once counted as a dry run).
func TestEverySkipRuleHasItsOutcome(t *testing.T) {
	want := map[journal.Rule]Outcome{
		journal.RuleDryRun:            OutcomeDryRun,
		journal.RuleAlreadyClaimed:    OutcomeAlreadyDone,
		journal.RuleSequenceLanded:    OutcomeAlreadyDone,
		journal.RuleSuperseded:        OutcomeSuperseded,
		journal.RuleSupersededPartial: OutcomeSuperseded,
	}
	rules := skipRules(t)
	if len(rules) == 0 {
		t.Fatal("no skip rules found in keeper/journal/rule.go")
	}
	for _, r := range rules {
		w, ok := want[r]
		if !ok {
			t.Errorf("skip rule %q has no expected outcome here: give it one in skippedOutcome and in this test", r)
			continue
		}
		if got := outcomeOf(journal.StateSkipped, r); got != w {
			t.Errorf("outcomeOf(skipped, %q) = %s, want %s", r, got, w)
		}
	}
}

// skipRules parses the values of the constants that follow the comment
// "// Skipped:" in keeper/journal/rule.go, up to the next blank line.
func skipRules(t *testing.T) []journal.Rule {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../journal/rule.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	start := 0
	for _, cg := range f.Comments {
		if cg.Text() == "Skipped: final, nothing (more) to do.\n" {
			start = fset.Position(cg.End()).Line
		}
	}
	if start == 0 {
		t.Fatal(`rule.go has no "// Skipped:" comment`)
	}
	var out []journal.Rule
	line := start
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		l := fset.Position(vs.Pos()).Line
		if l <= start || l > line+1 {
			return true
		}
		line = l
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
			v, _ := strconv.Unquote(lit.Value)
			out = append(out, journal.Rule(v))
		}
		return true
	})
	return out
}

// TestLandedRangeReadsAsEnglish: a sequence's detail names its landed
// transactions as a person would, never "transactions 0-0".
func TestLandedRangeReadsAsEnglish(t *testing.T) {
	for _, tc := range []struct {
		first, i int
		want     string
	}{
		{0, 0, "no transaction"},
		{0, 1, "transaction 0"},
		{0, 3, "transactions 0-2"},
		{1, 0, "transaction 0 (earlier attempts)"},
		{2, 0, "transactions 0-1 (earlier attempts)"},
		{1, 1, "transactions 0-1"},
	} {
		if got := landedRange(tc.first, tc.i); got != tc.want {
			t.Errorf("landedRange(%d, %d) = %q, want %q", tc.first, tc.i, got, tc.want)
		}
	}
}

// TestProposalOutcomes: a proposal's landing counts as proposed (a run's
// summary in /status and the actions metric), never landed; its
// settlement counts what became of the action.
func TestProposalOutcomes(t *testing.T) {
	if got := outcomeOf(journal.StateLanded, journal.ProposalRule(journal.ProposalProposed)); got != OutcomeProposed {
		t.Errorf("a proposal's landing is %s, want %s", got, OutcomeProposed)
	}
	if got := outcomeOf(journal.StateLanded, ""); got != OutcomeLanded {
		t.Errorf("a direct landing is %s, want %s", got, OutcomeLanded)
	}
	for s, want := range map[journal.ProposalState]Outcome{journal.ProposalExecuted: OutcomeLanded,
		journal.ProposalRejected: OutcomeRejected, journal.ProposalCancelled: OutcomeCancelled,
		journal.ProposalSuperseded: OutcomeSuperseded, journal.ProposalAbandoned: "", journal.ProposalApproved: ""} {
		got, settles := settledOutcome(s)
		if got != want || settles != (want != "") {
			t.Errorf("settledOutcome(%s) = %s, %v; want %q", s, got, settles, want)
		}
	}
}
