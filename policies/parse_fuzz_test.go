package policies

import (
	"errors"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes to the loader. It must never panic; it
// returns either policies or only positioned, non-empty errors; and a
// policy it accepts evaluates over an empty observation without error.
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(policyYAML("name: a", "kind: repay", `schedule: "@every 1m"`, "params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := Parse("fuzz.yaml", data)
		if err != nil {
			if ps != nil {
				t.Fatal("policies returned with an error")
			}
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %T %v is not a non-empty Errors", err, err)
			}
			for _, e := range errs {
				if e.Msg == "" || e.File != "fuzz.yaml" || e.Line < 0 || e.Column < 0 {
					t.Fatalf("bad error %#v", e)
				}
			}
			return
		}
		obs := &Observation{Wallet: "w", SnapshotTime: time.Unix(1e9, 0)}
		for _, p := range ps {
			if p.Name == "" || p.Params == nil || p.Cron() == nil {
				t.Fatalf("incomplete policy %+v", p)
			}
			if _, err := Evaluate(p, obs, time.Unix(1e9, 0), History{}, &State{}); err != nil {
				t.Fatalf("evaluate %s: %v", p.Name, err)
			}
		}
	})
}
