package policies

import (
	"slices"
	"testing"
	"time"
)

// TestEvaluateScoped checks that a scoped evaluation covers only the
// targets the scope touches (by key, by account, by mint) and that the
// `for` timers of the others survive it.
func TestEvaluateScoped(t *testing.T) {
	p := parseOne(t, policyYAML("name: low", "kind: alert", `schedule: "@every 1m"`, "select: {target: loans}",
		"when: loan.health < 0.5", "for: 1m", "params: {message: low}"))
	// Both loans: debt 7500 against a capacity of 8000 → health 0.0625.
	obs := observe(loan("a", 10_000, full(7_500_000_000)), loan("b", 10_000, full(7_500_000_000)))
	earlier := t0.Add(-2 * time.Minute)
	tests := []struct {
		name  string
		scope *Scope
		want  []string // targets evaluated
	}{
		{"every target", nil, []string{key("a"), key("b")}},
		{"a loan by its address", &Scope{Accounts: map[string]bool{key("b"): true}}, []string{key("b")}},
		{"the collateral mint", &Scope{Mints: map[string]bool{coll: true}}, []string{key("a"), key("b")}},
		{"another mint", &Scope{Mints: map[string]bool{key("other"): true}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := &State{PendingSince: map[string]time.Time{key("a"): earlier, key("b"): earlier}}
			res, err := EvaluateScoped(p, obs, t0, History{}, state, tt.scope)
			if err != nil {
				t.Fatal(err)
			}
			if res.Evaluated != len(tt.want) {
				t.Fatalf("evaluated %d targets, want %d (%v)", res.Evaluated, len(tt.want), tt.want)
			}
			var fired []string
			for _, a := range res.Actions {
				fired = append(fired, a.Target)
			}
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(fired, want) {
				t.Fatalf("alerts for %v, want %v", fired, want)
			}
			for _, k := range []string{key("a"), key("b")} {
				if got := state.PendingSince[k]; !got.Equal(earlier) {
					t.Errorf("pending since of %s = %v after the run, want %v kept", k, got, earlier)
				}
			}
		})
	}
}
