package policies

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// sievePolicies are policies whose decisions depend on the order of their
// targets and on state across runs: caps, `for` timers, cooldowns, alerts.
const sievePolicies = `
policies:
  - {name: capped, kind: repay, schedule: "@every 1m", limits: {max_actions_per_run: 3}, params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}}
  - {name: daily, kind: repay, schedule: "@every 1m", limits: {daily_caps: {%[1]s: 6000000000}}, params: {trigger_health: 0.1, target_health: 0.3, max_amount: 5000000000}}
  - {name: held, kind: repay, schedule: "@every 1m", for: 5m, params: {trigger_health: 0.1, target_health: 0.2, max_amount: 5000000000}}
  - {name: ending, kind: repay, schedule: "@every 1m", params: {trigger_health: 0.05, target_health: 0.2, max_amount: 5000000000, repay_all_within: 1h}}
  - {name: cooled, kind: repay, schedule: "@every 1m", limits: {cooldown: 1h}, when: "loan.ltv > 0.7", params: {target_health: 0.2, max_amount: 5000000000}}
  - {name: low, kind: alert, schedule: "@every 1m", select: {target: loans}, for: 2m, when: "loan.health < 0.05", params: {message: "{{.loan.address}}"}}
  - {name: broken, kind: alert, schedule: "@every 1m", select: {target: loans}, when: "loan.health / 0 > int('x')", params: {message: "x"}}
`

// sieveLoans returns n loans of the wallet in a shuffled order: one in
// seven unhealthy, one in eleven ending within the hour, one in thirteen
// with facts that cannot be derived (no collateral price at all).
func sieveLoans(n int, rng *rand.Rand) []market.LoanItem {
	out := make([]market.LoanItem, n)
	for i := range out {
		l := full(4_000_000_000)
		if i%7 == 0 {
			l.principal = 7_500_000_000
		}
		if i%11 == 0 {
			l.endIn = 30 * time.Minute
		}
		out[i] = loan(fmt.Sprintf("sieve %d", i), 10_000, l)
		if i%13 == 0 {
			out[i].Ledgers[0].Weights = nil
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// sieveRun evaluates p over loans in pages of size through a Sieve, with
// a copy of state, and returns the result and the state after.
//
// Pages that carry the wallet (shared) are evaluated as they are, their
// facts derived on the page, as the pages of a walk that feeds many sieves
// are; the others through a copy of the sieve's own.
func sieveRun(t *testing.T, p *Policy, base *Observation, loans []market.LoanItem, positions []PositionObservation,
	size int, shared bool, hist History, state State, scope *Scope) (Result, State, *Observation) {
	t.Helper()
	st := State{PendingSince: cloneTimes(state.PendingSince), Open: state.Open}
	s := NewSieve(p, base, t0, &st, scope)
	for i := 0; i < len(loans); i += size {
		page := &Observation{Loans: loans[i:min(i+size, len(loans))], Tokens: base.Tokens}
		if shared {
			page.Wallet = base.Wallet
		}
		for _, po := range positions {
			for _, l := range page.Loans {
				if l.Loan.Address == po.Loan {
					page.Positions = append(page.Positions, po)
				}
			}
		}
		s.Add(page)
	}
	obs := s.Observation()
	res, err := EvaluateScoped(p, obs, t0, hist, &st, scope)
	if err != nil {
		t.Fatal(err)
	}
	return res, st, obs
}

func cloneTimes(m map[string]time.Time) map[string]time.Time {
	if m == nil {
		return nil
	}
	out := make(map[string]time.Time, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestSieveDecidesAsTheWholeSet: for every policy, page size and scope,
// evaluating what the sieve kept decides exactly what evaluating the whole
// loan set at once does: the same actions (IDs), skips, count of targets
// evaluated and `for` timers; and it keeps only the loans that came to
// something.
func TestSieveDecidesAsTheWholeSet(t *testing.T) {
	ps, err := Parse("sieve.yaml", []byte(fmt.Sprintf(sievePolicies, usdc)))
	if err != nil {
		t.Fatal(err)
	}
	loans := sieveLoans(300, rand.New(rand.NewPCG(1, 2)))
	hist := History{Targets: map[string]TargetHistory{
		loans[0].Loan.Address: {InFlight: true},
		loans[1].Loan.Address: {LastAction: t0.Add(-10 * time.Minute)},
	}, SpentToday: map[string]uint64{usdc: 1_000_000_000}}
	state := State{PendingSince: map[string]time.Time{}}
	for _, l := range loans[:40] {
		state.PendingSince[l.Loan.Address] = t0.Add(-10 * time.Minute)
	}
	scope := &Scope{Accounts: map[string]bool{}}
	for _, l := range loans[20:90] {
		scope.Accounts[l.Loan.Address] = true
	}
	for _, p := range ps {
		for _, sc := range []*Scope{nil, scope} {
			whole := State{PendingSince: cloneTimes(state.PendingSince)}
			want, err := EvaluateScoped(p, observe(loans...), t0, hist, &whole, sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 7, 100, 1000} {
				shared := size%2 == 0
				name := fmt.Sprintf("%s/scoped=%v/page=%d/shared=%v", p.Name, sc != nil, size, shared)
				got, after, kept := sieveRun(t, p, observe(), loans, nil, size, shared, hist, state, sc)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: sieved result\n%s\nwant\n%s", name, jsonOf(t, got), jsonOf(t, want))
				}
				if !reflect.DeepEqual(after.PendingSince, whole.PendingSince) {
					t.Errorf("%s: `for` timers %v, want %v", name, after.PendingSince, whole.PendingSince)
				}
				if len(kept.Loans) > len(want.Actions)+len(want.Skipped)+len(state.PendingSince) {
					t.Errorf("%s: kept %d loans for %d actions and %d skips", name, len(kept.Loans), len(want.Actions), len(want.Skipped))
				}
			}
		}
	}
}

// TestSieveKeepsPositionsThatCameToSomething: a position policy keeps the
// positions whose condition holds and the loans holding them, and decides
// as over the whole set.
func TestSieveKeepsPositionsThatCameToSomething(t *testing.T) {
	p := parseOne(t, policyYAML("name: r", "kind: rebalance", `schedule: "@every 1m"`, "limits: {max_actions_per_run: 2}", "params: {width_ticks: 400}"))
	var loans []market.LoanItem
	var positions []PositionObservation
	for i := range 40 {
		label := fmt.Sprintf("pl %d", i)
		loans = append(loans, loan(label, 10_000, full(1_000_000_000)))
		tick := int32(0)
		if i%5 == 0 {
			tick = 1000 // out of [-500, 500)
		}
		positions = append(positions, clmmPosition(label, "pos "+label, clmm.DexA, clmm.Range{Lower: -500, Upper: 500}, tick, 10))
	}
	whole := observe(loans...)
	whole.Positions = positions
	want := evaluate(t, p, whole)
	got, _, kept := sieveRun(t, p, observe(), loans, positions, 6, true, History{}, State{}, nil)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sieved result\n%s\nwant\n%s", jsonOf(t, got), jsonOf(t, want))
	}
	if len(kept.Positions) != 8 || len(kept.Loans) != 8 || want.Evaluated != 40 {
		t.Errorf("kept %d positions and %d loans of 40 (evaluated %d); want the 8 out of range", len(kept.Positions), len(kept.Loans), want.Evaluated)
	}
}

// TestSieveResetDropsTheEarlierWalk: after Reset the sieve holds nothing
// of the pages added before it.
func TestSieveResetDropsTheEarlierWalk(t *testing.T) {
	p := parseOne(t, policyYAML("name: r", "kind: repay", `schedule: "@every 1m"`, "params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}"))
	s := NewSieve(p, observe(), t0, &State{}, nil)
	s.Add(observe(lowLoan("a"), loan("b", 10_000, full(1_000_000_000))))
	s.Reset()
	s.Add(observe(lowLoan("c")))
	obs := s.Observation()
	if len(obs.Loans) != 1 || obs.Loans[0].Loan.Address != key("c") || obs.Dropped != 0 {
		t.Errorf("after Reset kept %d loans (dropped %d), want only c", len(obs.Loans), obs.Dropped)
	}
}

// TestSievesOfOneWalkDeriveAPageOnce: two policies' sieves at the same
// second, handed the same page carrying the wallet, derive its facts once
// between them; a page without the wallet is derived by each sieve on a
// copy.
func TestSievesOfOneWalkDeriveAPageOnce(t *testing.T) {
	ps, err := Parse("sieve.yaml", []byte(fmt.Sprintf(sievePolicies, usdc)))
	if err != nil {
		t.Fatal(err)
	}
	loans := sieveLoans(50, rand.New(rand.NewPCG(3, 4)))
	a := NewSieve(ps[0], observe(), t0, &State{}, nil)
	b := NewSieve(ps[5], observe(), t0.Add(300*time.Millisecond), &State{}, nil)
	page := &Observation{Wallet: wallet, Loans: loans, Tokens: tokens}
	a.Add(page)
	first := page.derived
	b.Add(page)
	if first == nil || page.derived != first {
		t.Errorf("the page's facts: %p after the first sieve, %p after the second; want derived once, on the page", first, page.derived)
	}
	bare := &Observation{Loans: loans, Tokens: tokens}
	a.Add(bare)
	if bare.derived != nil {
		t.Error("a page without the wallet was derived on the page itself")
	}
}
