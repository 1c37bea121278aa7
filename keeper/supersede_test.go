package keeper

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
)

// expiredAction journals an action whose only attempt expired.
func expiredAction(t *testing.T, k *testKeeper, id, target string) {
	t.Helper()
	expiredWith(t, k, id, target, journal.Outcome{State: journal.StateExpired, Rule: "build-retryable"})
}

// expiredWith journals an action whose only attempt settled with out.
func expiredWith(t *testing.T, k *testKeeper, id, target string, out journal.Outcome) {
	t.Helper()
	ctx := context.Background()
	in := journal.Intent{ID: id, Policy: "repay-loans", Kind: "repay", Target: target, Reason: "r"}
	if _, _, err := k.journal.Begin(ctx, in); err != nil {
		t.Fatal(err)
	}
	att, err := k.journal.NewAttempt(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.journal.Settle(ctx, id, att.Number, out); err != nil {
		t.Fatal(err)
	}
}

func TestSupersedeClosesOnlyReplacedExpiredActions(t *testing.T) {
	_, k := newKeeper(t)
	expiredAction(t, k, "old-a", "LoanA")  // replaced by new-a: closed
	expiredAction(t, k, "same-b", "LoanB") // planned again as is: resumed later, kept
	expiredAction(t, k, "old-c", "LoanC")  // not planned this run: kept
	ctx := context.Background()
	acts, err := k.journal.List(ctx, journal.Filter{Policy: "repay-loans"})
	if err != nil {
		t.Fatal(err)
	}
	res := policies.Result{Actions: []policies.Action{{ID: "new-a", Target: "LoanA"}, {ID: "same-b", Target: "LoanB"}}}
	k.exec.Supersede(ctx, acts, plannedTargets(res))
	want := map[string]journal.State{"old-a": journal.StateSkipped, "same-b": journal.StateExpired, "old-c": journal.StateExpired}
	for id, state := range want {
		if got := k.action(t, id); got.State != state {
			t.Errorf("%s: state %s, want %s", id, got.State, state)
		}
	}
	if a := k.action(t, "old-a"); a.Rule != "superseded" || a.Detail != "superseded by new-a" {
		t.Errorf("old-a closed with %q / %q", a.Rule, a.Detail)
	}
}

// TestSupersedePartialSequence: an expired sequence whose first transaction landed, replaced by a
// new plan for the rest, is closed saying that part of it landed, not as a plain supersede.
func TestSupersedePartialSequence(t *testing.T) {
	_, k := newKeeper(t)
	expiredWith(t, k, "half", "VaultA", journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSequencePartial,
		Detail: "transaction 1 of 2 landed (5sig); the next expired"})
	ctx := context.Background()
	acts, err := k.journal.List(ctx, journal.Filter{Policy: "repay-loans"})
	if err != nil {
		t.Fatal(err)
	}
	k.exec.Supersede(ctx, acts, plannedTargets(policies.Result{Actions: []policies.Action{{ID: "rest", Target: "VaultA"}}}))
	a := k.action(t, "half")
	if a.State != journal.StateSkipped || a.Rule != journal.RuleSupersededPartial ||
		a.Detail != "transaction 1 of 2 landed (5sig); the next expired; the rest superseded by rest" {
		t.Errorf("partial sequence closed as %s / %q / %q", a.State, a.Rule, a.Detail)
	}
}

func TestJournalLagIgnoresExpiredActions(t *testing.T) {
	_, k := newKeeper(t)
	expiredAction(t, k, "old", "LoanA")
	pending, err := k.journal.Pending(context.Background())
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending = %d, %v", len(pending), err)
	}
	k.upkeep.setJournalGauges(pending)
	if got := gaugeValue(t, k.metrics.JournalLag); got != 0 {
		t.Errorf("journal lag = %v, want 0 with only an expired action", got)
	}
	if got := gaugeValue(t, k.metrics.JournalPending); got != 1 {
		t.Errorf("journal pending = %v, want 1", got)
	}
}

func gaugeValue(t *testing.T, g prometheus.Collector) float64 {
	t.Helper()
	return testutil.ToFloat64(g)
}

// TestSupersedeClosesABareIntent: a crash right after an intent was
// journaled leaves it planned with no attempt; when the policy next plans
// the target with other inputs (a repay amount that grew with interest), the
// bare intent is closed as superseded rather than left planned forever.
func TestSupersedeClosesABareIntent(t *testing.T) {
	_, k := newKeeper(t)
	ctx := context.Background()
	if _, _, err := k.journal.Begin(ctx, journal.Intent{ID: "bare", Policy: "repay-loans", Kind: "repay", Target: "LoanA", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	p := &policies.Policy{Name: "repay-loans"}
	_, resumable, err := historyAndResumable(ctx, k.journal, p, k.now())
	if err != nil {
		t.Fatal(err)
	}
	k.exec.Supersede(ctx, resumable, plannedTargets(policies.Result{Actions: []policies.Action{{ID: "grown", Target: "LoanA"}}}))
	if a := k.action(t, "bare"); a.State != journal.StateSkipped || a.Rule != journal.RuleSuperseded {
		t.Errorf("the bare intent is %s (%s), want skipped as superseded", a.State, a.Rule)
	}
}
