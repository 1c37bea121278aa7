package keeper

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/policies"
)

// TestPlansOverManyPagesDecideAsOverTheWholeSet: over 250 more loans of the
// wallet, once SOL has fallen, every example policy that reads loans
// (repay with quotes, alerts, rebalance and claim-fees with CLMM positions
// and prices) plans, from pages of 20 sieved as they come, exactly the
// actions and skips that evaluating the whole set at once gives, counting
// the same targets; the sieved observations keep only the loans that came
// to something; and the policies, planned together, read the loans in one
// walk: one request a page.
func TestPlansOverManyPagesDecideAsOverTheWholeSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		more := strings.ReplaceAll(manyLoans("more", "$wallet", 250), `principal: "500"`, `principal: "100"`)
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, more, solFalls), configYAML: pageSizeConfig(20)})
		w.usePolicies(t, "auto-repay.yaml", "alerts.yaml", "rebalance.yaml", "claim-fees.yaml")
		k := w.open(t, "")
		w.advance(t, 13*time.Minute) // SOL at 70

		pagesBefore := w.net.countPath("/loans/info")
		sieved, err := k.Plan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		pages := w.net.countPath("/loans/info") - pagesBefore
		acted, loanPolicies, loans := 0, 0, 0
		for _, s := range sieved {
			if s.Err != "" {
				t.Fatalf("policy %s: %s", s.Policy, s.Err)
			}
			r := s.policy.Reads(w.wallet().String())
			if r.Loans == nil {
				continue
			}
			loanPolicies++
			whole, err := k.obs.observeAfresh(t.Context(), s.policy, r)
			if err != nil {
				t.Fatal(err)
			}
			loans = len(whole.Loans)
			res, err := policies.Evaluate(s.policy, whole, s.Result.Now, s.hist, &policies.State{PendingSince: maps.Clone(s.pending)})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Actions, res.Actions) || !reflect.DeepEqual(s.Skipped, res.Skipped) || s.Result.Evaluated != res.Evaluated {
				t.Errorf("policy %s sieved: %d actions, skips %v, %d evaluated; whole: %d actions, skips %v, %d evaluated",
					s.Policy, len(s.Actions), s.Skipped, s.Result.Evaluated, len(res.Actions), res.Skipped, res.Evaluated)
			}
			acted += len(s.Actions)
			if s.Policy == "auto-repay" && s.obs.Dropped < 250 {
				t.Errorf("auto-repay dropped %d loans, want the 250 healthy ones at least", s.obs.Dropped)
			}
			if s.obs.SievedAt().IsZero() || len(s.obs.Loans) > len(s.Actions)+len(s.Skipped) {
				t.Errorf("policy %s: sieved observation holds %d loans (dropped %d) for %d actions and %d skips",
					s.Policy, len(s.obs.Loans), s.obs.Dropped, len(s.Actions), len(s.Skipped))
			}
		}
		if acted == 0 || loanPolicies < 4 {
			t.Fatalf("%d actions planned by %d policies reading loans: the test shows nothing", acted, loanPolicies)
		}
		if want := (loans + 19) / 20; pages != want {
			t.Errorf("%d loans-info requests for %d policies over %d loans, want one walk of %d pages", pages, loanPolicies, loans, want)
		}
	})
}

// TestAPassOfManyPoliciesReadsTheLoansOnce: a pass of twelve policies over
// 1,200 loans of the wallet, four at a time (policy_concurrency), reads the
// loans in one walk: one request a page of 500 (market.page_size's
// default). The config still names market.shared_walk_max_loans, which is
// accepted and ignored: before, it made each group of four policies walk
// the set again.
func TestAPassOfManyPoliciesReadsTheLoansOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		more := manyLoans("more", "$wallet", 1200)
		cfg := strings.Replace(simConfigYAML, "  earn_program_id:", "  shared_walk_max_loans: 100\n  earn_program_id:", 1)
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, more, ""), configYAML: cfg})
		var sb strings.Builder
		sb.WriteString("policies:\n")
		for i := range 12 {
			fmt.Fprintf(&sb, "  - {name: low-%d, kind: alert, schedule: \"@every 1m\", select: {target: loans}, when: \"loan.health < %.2f\", params: {message: \"low\"}}\n", i, 0.01*float64(i))
		}
		w.writePolicy(t, "alerts.yaml", sb.String())
		k := w.open(t, "")
		whole, err := k.obs.observeAfresh(t.Context(), nil, policies.Reads{Loans: k.policyNamed(t, "low-0").Reads(w.wallet().String()).Loans})
		if err != nil {
			t.Fatal(err)
		}
		before := w.net.countPath("/loans/info")
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got, want := w.net.countPath("/loans/info")-before, (len(whole.Loans)+499)/500; got != want || len(whole.Loans) < 1200 {
			t.Errorf("%d loans-info requests for a pass of 12 policies over %d loans, want one walk of %d pages", got, len(whole.Loans), want)
		}
	})
}

// TestWalletReadsEveryLoanOfALargeSet: `keeper wallet` lists every loan of
// the wallet however many pages they take.
func TestWalletReadsEveryLoanOfALargeSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, manyLoans("more", "$wallet", 30), ""), configYAML: pageSizeConfig(10)})
		k := w.open(t, "")
		rep, err := k.Holdings(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Loans) < 30 {
			t.Errorf("wallet lists %d loans, want every one of the 30 and more", len(rep.Loans))
		}
	})
}
