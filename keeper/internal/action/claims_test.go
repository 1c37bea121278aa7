package action

import (
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/signer"
)

func TestTargetClaims(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	plan := func(id, kind, target string, reads time.Time) Plan {
		return Plan{ID: id, Kind: signer.Kind(kind), Target: target, ReadsFrom: reads}
	}
	c := newTargetClaims()
	a := plan("a", "repay", "loan", t0)
	if _, ok := c.take(a); !ok {
		t.Fatal("a free target was not claimed")
	}
	if _, ok := c.take(a); !ok {
		t.Error("the holder could not claim its target again")
	}
	if why, ok := c.take(plan("b", "repay", "loan", t0)); ok || !strings.Contains(why, "acting on the target now") {
		t.Errorf("a second repay of a held loan: ok %v, %q", ok, why)
	}
	if _, ok := c.take(plan("c", "rebalance", "loan", t0)); !ok {
		t.Error("another kind of work on the loan waited for the repay")
	}
	if _, ok := c.take(plan("d", "repay", "other loan", t0)); !ok {
		t.Error("a repay of another loan waited for the repay")
	}
	c.release(a, OutcomeLanded, t0.Add(time.Second))
	if why, ok := c.take(plan("b", "repay", "loan", t0)); ok || !strings.Contains(why, "after this run read it") {
		t.Errorf("a repay decided from reads before the landing: ok %v, %q", ok, why)
	}
	if _, ok := c.take(plan("b", "repay", "loan", t0.Add(2*time.Second))); !ok {
		t.Error("a repay decided from reads after the landing was held back")
	}
}

func TestTargetClaimsUnchangedByRefusal(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	c := newTargetClaims()
	a := Plan{ID: "a", Kind: signer.Kind("repay"), Target: "loan", ReadsFrom: t0}
	for _, o := range []Outcome{OutcomeRefused, OutcomeDryRun, OutcomeNotTaken, OutcomeBusy} {
		if _, ok := c.take(a); !ok {
			t.Fatalf("after %s: the target was not free", o)
		}
		c.release(a, o, t0.Add(time.Second))
		if _, ok := c.take(Plan{ID: "b", Kind: a.Kind, Target: "loan", ReadsFrom: t0}); !ok {
			t.Errorf("an action that ended %s made reads before it stale", o)
		}
		c.release(Plan{ID: "b", Kind: a.Kind, Target: "loan"}, OutcomeBusy, t0)
	}
}

func TestTargetClaimsForgetOldChanges(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	c := newTargetClaims()
	for i, target := range []string{"l1", "l2", "l3"} {
		p := Plan{ID: target, Kind: signer.Kind("repay"), Target: target}
		c.take(p)
		c.release(p, OutcomeLanded, t0.Add(time.Duration(i)*time.Minute))
	}
	last := Plan{ID: "l4", Kind: signer.Kind("repay"), Target: "l4"}
	c.take(last)
	c.release(last, OutcomeLanded, t0.Add(changeMemory+90*time.Second))
	if len(c.changed) != 2 || len(c.held) != 0 {
		t.Errorf("after an hour and a half: %d change times (want l3 and l4), %d held", len(c.changed), len(c.held))
	}
}
