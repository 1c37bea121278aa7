package keeper

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/policies"
)

// policyNamed loads the world's policies and returns the named one.
func (k *simKeeper) policyNamed(t *testing.T, name string) *policies.Policy {
	t.Helper()
	ps, err := k.policies.load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no policy %s", name)
	return nil
}

// manyLoans is n loans of borrower against SOL, named prefix-0, prefix-1, ...
func manyLoans(prefix, borrower string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  - name: %s-%d\n    borrower: %s\n    collateral:\n      - {mint: SOL, amount: \"10\"}\n    ledgers:\n      - {strategy: beta, principal: \"500\", term: 30d}\n",
			prefix, i, borrower)
	}
	return b.String()
}

// TestObserveLoansReadsEveryPageWithFiltersPushed gives the wallet 250 more
// loans and another borrower 40: a whole read of a repay policy's reads
// holds exactly the wallet's 254 loans, read in three pages of 100 (the
// borrower filter is pushed to the API, so the other borrower's loans are
// never transferred; the policy's principal-mint filter is applied by
// Evaluate, so its read is the one every policy of the wallet shares),
// each page once, with the time of the market's oracle snapshot (older
// than the read).
func TestObserveLoansReadsEveryPageWithFiltersPushed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, manyLoans("mine", "$wallet", 250)+manyLoans("theirs", "alice", 40), ""),
			configYAML: pageSizeConfig(100)})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		time.Sleep(3 * time.Second)
		p := k.policyNamed(t, "auto-repay")
		obs, err := k.obs.observeAfresh(t.Context(), p, p.Reads(w.wallet().String()))
		if err != nil {
			t.Fatal(err)
		}
		if len(obs.Loans) != 254 {
			t.Errorf("observed %d loans, want the wallet's 254", len(obs.Loans))
		}
		seen := map[string]bool{}
		for _, l := range obs.Loans {
			if l.Loan.Borrower != w.wallet().String() || seen[l.Loan.Address] {
				t.Fatalf("loan %s of %s (seen before: %v) in the wallet's observation", l.Loan.Address, l.Loan.Borrower, seen[l.Loan.Address])
			}
			seen[l.Loan.Address] = true
		}
		if got, want := w.net.countPath("/loans/info"), (254+api.DefaultPageSize-1)/api.DefaultPageSize; got != want {
			t.Errorf("%d loans-info calls, want %d pages", got, want)
		}
		// The simulated market pins an oracle snapshot every sim.SnapshotRefresh from its start: the
		// read 3 s in carries the start's, older than the read, and the observation is as old as it.
		if want := w.sim.StartTime(); !obs.SnapshotTime.Equal(want) || !want.Before(time.Now()) {
			t.Errorf("snapshot time %v, want the market's snapshotTs %v (the read was at %v)", obs.SnapshotTime, want, time.Now())
		}
	})
}

// TestObservePositionsFromChainInOneBatch: a whole read of a rebalance
// policy's reads observes the wallet's two CLMM collateral positions (dex-a and dex-b) from their chain
// accounts, decoded as the simulator holds them, with the fees they are
// owed, in one getMultipleAccounts call once their tick arrays are known.
func TestObservePositionsFromChainInOneBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "rebalance.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		p := k.policyNamed(t, "rebalance-dex-a")
		obs, err := k.obs.observeAfresh(t.Context(), p, p.Reads(w.wallet().String()))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"rebalance-me": "pos-a", "claim-me": "pos-b"}
		if len(obs.Positions) != len(want) {
			t.Fatalf("observed %d positions, want %d", len(obs.Positions), len(want))
		}
		for loan, pos := range want {
			mint := w.address(t, ids.KindPosition, pos)
			simPos, simPool, err := w.sim.Accounts().Position(mint)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, o := range obs.Positions {
				if o.Loan != w.address(t, ids.KindLoan, loan).String() {
					continue
				}
				found = true
				st := o.State
				if st.Err != nil || st.Position.Mint != mint || st.Position.Range != simPos.Range || st.Position.Liquidity != simPos.Liquidity ||
					st.Pool.SqrtPriceX64 != simPool.SqrtPriceX64 || st.Pool.TickSpacing != simPool.TickSpacing {
					t.Errorf("%s: observed %+v (err %v), want the chain's %v in pool at %v", pos, st.Position, st.Err, simPos.Range, simPool.SqrtPriceX64)
				}
				if owed, err := w.sim.Accounts().PositionOwed(mint); err != nil || st.OwedErr != nil || st.Owed != owed {
					t.Errorf("%s: observed owed %+v (%v), want the chain's %+v (%v)", pos, st.Owed, st.OwedErr, owed, err)
				}
			}
			if !found {
				t.Errorf("no observation of %s on loan %s", pos, loan)
			}
		}
		// The first read learns the ranges (positions and pools), then reads positions, pools and
		// tick arrays together, then learns the mints it names (mints and their metadata, one
		// call); later reads need one call.
		if got := w.net.count(simRPCHost, "getMultipleAccounts"); got != 3 {
			t.Errorf("%d getMultipleAccounts calls, want 3 on the first read", got)
		}
		w.advance(t, 2*time.Second) // past the read cache
		if _, err := k.obs.observeAfresh(t.Context(), p, p.Reads(w.wallet().String())); err != nil {
			t.Fatal(err)
		}
		if got := w.net.count(simRPCHost, "getMultipleAccounts"); got != 4 {
			t.Errorf("%d getMultipleAccounts calls, want one more for the second read", got)
		}
	})
}

// TestObserveWithdrawalsVaultsAndQuotes checks the other observers against
// the simulator: the earn queue of the selected vault for the wallet, the
// vault listing with rewards, and the best quotes for the wallet's strategy
// terms.
func TestObserveWithdrawalsVaultsAndQuotes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "claim-withdrawals.yaml", "vault-upkeep.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		obs, err := k.obs.observe(t.Context(), k.policyNamed(t, "claim-earn-withdrawals"), sieving{})
		if err != nil {
			t.Fatal(err)
		}
		reqs := map[string]market.WithdrawalState{}
		for _, q := range obs.Withdrawals {
			for _, r := range q.Requests {
				reqs[r.RequestID] = r.State()
			}
		}
		full, partial := w.address(t, ids.KindRequest, "usdc-earn/r-full").String(), w.address(t, ids.KindRequest, "usdc-earn/r-partial").String()
		if len(reqs) != 2 || !obsClaimable(obs, full) || obsClaimable(obs, partial) {
			t.Errorf("withdrawal requests %v, want the wallet's r-full claimable and r-partial not", reqs)
		}
		obs, err = k.obs.observe(t.Context(), k.policyNamed(t, "track-best-quote"), sieving{})
		if err != nil {
			t.Fatal(err)
		}
		if len(obs.Vaults) != 3 {
			t.Errorf("observed %d vaults, want the scenario's 3", len(obs.Vaults))
		}
		best := map[string]market.CBPS{}
		for _, q := range obs.Quotes {
			best[q.Duration.String()] = q.Quote.Apy
		}
		if len(obs.Quotes) == 0 || best["7 days"] != 90_000 {
			t.Errorf("best quotes %v, want beta's 9%% (90000) at 7 days", best)
		}
	})
}

// obsClaimable reports whether the observation holds request id as claimable.
func obsClaimable(obs *policies.Observation, id string) bool {
	for _, q := range obs.Withdrawals {
		for _, r := range q.Requests {
			if r.RequestID == id {
				return r.Claimable()
			}
		}
	}
	return false
}

// twoLoanAlerts are two policies with the same loans selection and a third
// with another, all every 5 s.
const twoLoanAlerts = `policies:
  - name: low-a
    kind: alert
    schedule: "@every 5s"
    select: { target: loans }
    when: loan.health < 0.01
    params: { severity: info, message: "{{.loan.address}}" }
  - name: low-b
    kind: alert
    schedule: "@every 5s"
    select: { target: loans }
    when: loan.health < 0.02
    params: { severity: info, message: "{{.loan.address}}" }
  - name: alice-low
    kind: alert
    schedule: "@every 5s"
    select: { target: loans, borrowers: [%s] }
    when: loan.health < 0.01
    params: { severity: info, message: "{{.loan.address}}" }
`

// TestObservationSharedWithinTickFreshEachTick runs three loan alerts every
// 5 s for 21 s: the two with the same selection and the third, whose
// borrowers differ, share one walk of the loans per tick (of the union of
// their borrowers: one page), and every tick reads afresh (4 ticks).
func TestObservationSharedWithinTickFreshEachTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.writePolicy(t, "alerts.yaml", fmt.Sprintf(twoLoanAlerts, w.address(t, ids.KindWallet, "alice")))
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(21 * time.Second)
		synctest.Wait()
		for _, p := range []string{"low-a", "low-b", "alice-low"} {
			if got := k.runs(p, "ok"); got != 4 {
				t.Errorf("policy %s ran %v times, want 4", p, got)
			}
		}
		if got := w.net.countPath("/loans/info"); got != 4 {
			t.Errorf("%d loans reads in 4 ticks, want 1 per tick (one walk for the three)", got)
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}
