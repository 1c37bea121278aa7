package policies

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// clearedAlert alerts on a loan's health, reading two facts.
func clearedAlert(t *testing.T) *Policy {
	return parseOne(t, policyYAML("name: low", "kind: alert", `schedule: "@every 1m"`, "select: {target: loans}",
		"when: loan.health < 0.1 && loan.ltv > 0 && any(loan.ledgers, .health < 0.1)", `params: {message: "low"}`))
}

// TestAlertResolutionCarriesTheValueNow: of an alert's open incidents, the
// evaluation reports the targets whose condition it found false with the
// facts `when` reads as they are now, the targets it no longer finds as
// gone, and neither the one still firing nor the one whose data it could
// not use (that incident stays open).
func TestAlertResolutionCarriesTheValueNow(t *testing.T) {
	p := clearedAlert(t)
	healthy, low, broken := loan("healthy", 10_000, full(1_000_000_000)), lowLoan("low"), lowLoan("broken")
	broken.Ledgers[0].Weights = nil // facts that cannot be derived
	obs := observe(healthy, low, broken, loan("quiet", 10_000, full(1_000_000_000)))
	open := map[string]bool{key("healthy"): true, key("low"): true, key("broken"): true, key("closed"): true}
	res, err := Evaluate(p, obs, t0, History{}, &State{Open: open})
	if err != nil {
		t.Fatal(err)
	}
	var facts LoanFacts
	for _, l := range obs.Holdings(t0).Loans {
		if l.Address == key("healthy") {
			facts = l
		}
	}
	want := []Cleared{
		{Target: key("healthy"), Value: fmt.Sprintf("loan.health %s, loan.ltv %s", formatRatio(facts.Health), formatRatio(facts.LTV))},
		{Target: key("closed"), Gone: true},
	}
	if !reflect.DeepEqual(res.Cleared, want) {
		t.Errorf("cleared = %+v, want %+v", res.Cleared, want)
	}
	if facts.Health < 0.1 || len(res.Actions) != 1 || res.Actions[0].Target != key("low") {
		t.Errorf("health %v, actions %+v: want the low loan alone firing", facts.Health, res.Actions)
	}
}

// TestAlertNothingClearsWithoutAWholeLook: a stale snapshot clears
// nothing, and a scoped run (a trigger's) clears what it evaluated but
// calls no target gone.
func TestAlertNothingClearsWithoutAWholeLook(t *testing.T) {
	p := clearedAlert(t)
	open := map[string]bool{key("healthy"): true, key("closed"): true}
	obs := observe(loan("healthy", 10_000, full(1_000_000_000)))
	if res, _ := Evaluate(p, obs, t0.Add(time.Hour), History{}, &State{Open: open}); len(res.Cleared) != 0 {
		t.Errorf("a stale snapshot cleared %+v", res.Cleared)
	}
	scope := &Scope{Accounts: map[string]bool{key("healthy"): true}}
	res, err := EvaluateScoped(p, obs, t0, History{}, &State{Open: open}, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cleared) != 1 || res.Cleared[0].Target != key("healthy") || res.Cleared[0].Gone {
		t.Errorf("scoped run cleared %+v, want the healthy loan alone", res.Cleared)
	}
}

// TestSieveKeepsClearedIncidents: a loan whose open incident clears comes
// to something, so the sieve keeps it and the run reports its value as
// evaluating every loan at once does.
func TestSieveKeepsClearedIncidents(t *testing.T) {
	p := clearedAlert(t)
	var loans []market.LoanItem
	for i := range 30 {
		loans = append(loans, loan(fmt.Sprintf("c %d", i), 10_000, full(1_000_000_000)))
	}
	open := map[string]bool{key("c 7"): true, key("c 21"): true}
	want, err := Evaluate(p, observe(loans...), t0, History{}, &State{Open: open})
	if err != nil {
		t.Fatal(err)
	}
	got, _, kept := sieveRun(t, p, observe(), loans, nil, 4, true, History{}, State{Open: open}, nil)
	if !reflect.DeepEqual(got, want) || len(want.Cleared) != 2 || slices.ContainsFunc(want.Cleared, func(c Cleared) bool { return c.Value == "" }) {
		t.Errorf("sieved %+v\nwant %+v, two with values", got.Cleared, want.Cleared)
	}
	if len(kept.Loans) != 2 {
		t.Errorf("the sieve kept %d loans, want the 2 with open incidents", len(kept.Loans))
	}
}
