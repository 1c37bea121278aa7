package keeper

import (
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestLargeLoanSetPlansAsTheSharedWalk: over 250 more loans of the wallet,
// once SOL has fallen, every example policy that reads loans (repay with
// quotes, alerts, rebalance and claim-fees with CLMM positions and prices)
// plans exactly the same actions and skips, and counts the same targets,
// whether the loans are read once and shared or read page by page and
// sieved; the sieved observations keep only the loans that came to
// something. A set once seen larger than the shared walks is read page by
// page from then on, without trying page 0 of a shared walk first.
func TestLargeLoanSetPlansAsTheSharedWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		more := strings.ReplaceAll(manyLoans("more", "$wallet", 250), `principal: "500"`, `principal: "100"`)
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, more, solFalls)})
		w.usePolicies(t, "auto-repay.yaml", "alerts.yaml", "rebalance.yaml", "claim-fees.yaml")
		k := w.open(t, "")
		w.advance(t, 13*time.Minute) // SOL at 70

		k.obs.walks.sharedMax = 1 << 20
		shared, err := k.Plan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		k.obs.reads.forget()
		k.obs.walks.sharedMax = 20
		pagesBefore := w.net.countPath("/loans/info")
		sieved, err := k.Plan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(sieved) != len(shared) {
			t.Fatalf("%d plans sieved, %d shared", len(sieved), len(shared))
		}
		acted, loanPolicies := 0, 0
		for i, s := range sieved {
			sh := shared[i]
			if s.Err != "" || sh.Err != "" {
				t.Fatalf("policy %s: errors %q (sieved) %q (shared)", s.Policy, s.Err, sh.Err)
			}
			if !reflect.DeepEqual(s.Actions, sh.Actions) || !reflect.DeepEqual(s.Skipped, sh.Skipped) || s.Result.Evaluated != sh.Result.Evaluated {
				t.Errorf("policy %s sieved: %d actions, skips %v, %d evaluated; shared: %d actions, skips %v, %d evaluated",
					s.Policy, len(s.Actions), s.Skipped, s.Result.Evaluated, len(sh.Actions), sh.Skipped, sh.Result.Evaluated)
			}
			acted += len(s.Actions)
			if s.policy.Reads(w.wallet().String()).Loans == nil {
				continue
			}
			loanPolicies++
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
		// These policies read the wallet's loans with one query: page 0 of a shared walk once (the
		// first policy finds the set large), then each policy its own walk of 3 pages.
		if got, want := w.net.countPath("/loans/info")-pagesBefore, 1+loanPolicies*3; got != want {
			t.Errorf("%d loans-info calls for the sieved plans, want %d", got, want)
		}
		k.obs.reads.forget()
		pagesBefore = w.net.countPath("/loans/info")
		if _, err := k.Plan(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got, want := w.net.countPath("/loans/info")-pagesBefore, loanPolicies*3; got != want {
			t.Errorf("%d loans-info calls once the set is known large, want %d", got, want)
		}
	})
}

// TestWalletReadsEveryLoanOfALargeSet: `keeper wallet` lists every loan of
// the wallet however many there are; the shared walks' limit is for
// policies, which can read a large set page by page.
func TestWalletReadsEveryLoanOfALargeSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, manyLoans("more", "$wallet", 30), ""), configYAML: sievingConfig(10)})
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
