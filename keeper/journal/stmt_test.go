package journal

import (
	"testing"
)

// TestActionPathStatementsArePreparedAtOpen checks that a journal prepares
// every fixed statement when it opens, so that none of the action path's
// statements is parsed on an action's path, and that a fixed statement runs
// prepared.
func TestActionPathStatementsArePreparedAtOpen(t *testing.T) {
	j := openMemory(t, newClock())
	if len(fixedStatements) == 0 {
		t.Fatal("no fixed statements are registered")
	}
	for _, q := range []string{insertAction, selectHead, updateState, bumpAttempts, insertAttemptRow, selectAction,
		setBuilt, setSigned, setSubmitted, setSettled, countTips, insertTipRow} {
		if j.stmts[q] == nil {
			t.Errorf("statement not prepared at open: %.60q", q)
		}
	}
	if len(j.stmts) != len(fixedStatements) {
		t.Errorf("prepared %d statements, want the %d fixed ones", len(j.stmts), len(fixedStatements))
	}
	if _, _, _, err := j.Start(t.Context(), Intent{ID: "a", Policy: "p", Kind: "repay"}); err != nil {
		t.Fatalf("Start with the prepared statements: %v", err)
	}
}
