package journal

import (
	"testing"
	"time"
)

func TestIncidentOpensOncePerCondition(t *testing.T) {
	ctx := t.Context()
	dsn := tempDSN(t)
	clk := newClock()
	j := openDSN(t, dsn, clk)
	in := Incident{Policy: "floor", Target: "VaultA", Severity: "critical", Message: "APY 2% under 5%"}
	first, opened, err := j.OpenIncident(ctx, in)
	if err != nil || !opened || first.ID == 0 || !first.Open() || first.Message != in.Message {
		t.Fatalf("first OpenIncident = %+v, %v, %v; want a new open incident", first, opened, err)
	}
	clk.set(clk.Now().Add(time.Minute))
	again, opened, err := j.OpenIncident(ctx, Incident{Policy: "floor", Target: "VaultA", Severity: "critical", Message: "APY 1%"})
	if err != nil || opened || again.ID != first.ID || again.Message != in.Message {
		t.Fatalf("second OpenIncident = %+v, %v, %v; want the open one, not opened again", again, opened, err)
	}
	if _, opened, _ := j.OpenIncident(ctx, Incident{Policy: "floor", Target: "VaultB"}); !opened {
		t.Error("another target's incident did not open")
	}
	// A restart: the incident is still open in the file.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j = openDSN(t, dsn, clk)
	if _, opened, _ := j.OpenIncident(ctx, in); opened {
		t.Error("a restarted journal opened the incident again")
	}
	resolved, err := j.ResolveIncidents(ctx, "floor", []string{in.Target})
	if err != nil || len(resolved) != 1 || resolved[0].ID != first.ID || resolved[0].Open() {
		t.Fatalf("ResolveIncidents = %+v, %v; want VaultA's incident resolved", resolved, err)
	}
	if again, err := j.ResolveIncidents(ctx, "floor", []string{in.Target}); err != nil || len(again) != 0 {
		t.Errorf("resolving again = %+v, %v; want nothing: each incident resolves once", again, err)
	}
	next, opened, err := j.OpenIncident(ctx, in)
	if err != nil || !opened || next.ID == first.ID {
		t.Errorf("after the resolve, OpenIncident = %+v, %v, %v; want a new incident", next, opened, err)
	}
	all, err := j.Incidents(ctx, IncidentFilter{Policy: "floor"})
	if err != nil || len(all) != 3 || all[0].ID != next.ID {
		t.Fatalf("Incidents = %+v, %v; want three, newest first", all, err)
	}
	clk.set(clk.Now().Add(48 * time.Hour))
	if _, err := j.Prune(ctx, clk.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if left, _ := j.Incidents(ctx, IncidentFilter{}); len(left) != 2 {
		t.Errorf("after pruning, %d incidents left, want the 2 still open", len(left))
	}
}
