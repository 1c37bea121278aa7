package policies

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
)

// FuzzParse feeds arbitrary bytes to the loader. It must never panic; it
// returns either policies or only positioned, non-empty errors; every
// address a policy it accepts names decodes to 32 bytes; and such a policy
// evaluates over an empty observation without error.
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(policyYAML("name: a", "kind: repay", `schedule: "@every 1m"`, "params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}")))
	f.Add([]byte(policyYAML("name: a", "kind: repay", `schedule: "@every 1m"`, "params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}",
		"triggers: {account: [{address: "+long33+"}]}", "select: {loans: ["+long33+"]}")))
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
			for _, a := range addressesOf(p) {
				if _, err := solana.PublicKeyFromBase58(a); err != nil {
					t.Fatalf("policy %s names %q: %v", p.Name, a, err)
				}
			}
			if _, err := Evaluate(p, obs, time.Unix(1e9, 0), History{}, &State{}); err != nil {
				t.Fatalf("evaluate %s: %v", p.Name, err)
			}
		}
	})
}

// addressesOf lists every address policy p names: trigger accounts, pools
// and mints, select's lists and the mints of daily caps.
func addressesOf(p *Policy) []string {
	var out []string
	for _, a := range p.Triggers.Account {
		out = append(out, a.Address+a.Pool) // exactly one is set
	}
	for _, pt := range p.Triggers.Price {
		out = append(out, pt.Mint)
	}
	for _, f := range selectFields {
		out = append(out, f.values(&p.Select)...)
	}
	return slices.AppendSeq(out, maps.Keys(p.Limits.DailyCaps))
}
