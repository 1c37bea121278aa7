package policies

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// near reports |a − b| ≤ 1e-9 (relative to the larger).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// TestLoanFacts checks every loan fact of a hand-computed loan: 10,000 USD
// of collateral at lqt 80 % (capacity 8,000), 7,500 USDC principal plus
// 5 USDC interest outstanding plus 10 units/s for the 1,000 s left:
// debt 7,505,010,000 units = 7,505.01 USD at 1e-6 USD per unit.
func TestLoanFacts(t *testing.T) {
	l := full(7_500_000_000)
	l.interest, l.perSecond, l.endIn = 5_000_000, 10, 1000*time.Second
	it := loan("a", 10_000, l)
	it.CollateralYieldPct, it.PnlUsd, it.InterestAccruedUsd = 7.3, -50, 5
	quote := func(amount uint64, ltv market.CBPS) QuoteObservation {
		return QuoteObservation{PrincipalMint: usdc, Duration: days(30), Quote: market.Quote{CollateralIdentifier: coll, Amount: market.Amount(amount), Ltv: ltv}}
	}
	obs := observe(it)
	obs.Quotes = []QuoteObservation{quote(7_505_010_000, 800_000)}
	f := obs.facts(t0).loans[0].facts
	checks := []struct {
		name      string
		got, want float64
	}{
		{"health = 1 − 7505.01/8000", f.Health, 1 - 7505.01/8000},
		{"ltv = 7505.01/10000", f.LTV, 0.750501},
		{"liquidation ltv = 8000/10000", f.LiquidationLTV, 0.8},
		{"debt usd", f.DebtUSD, 7505.01},
		{"collateral usd", f.CollateralUSD, 10_000},
		{"principal usd", f.PrincipalUSD, 7500},
		{"interest accrued usd", f.InterestAccruedUSD, 5},
		{"pnl usd", f.PnlUSD, -50},
		// 10000·7.3/100/365 = 2 USD of yield; 10·86400·1e-6 = 0.864 USD of interest.
		{"daily carry usd", f.DailyCarryUSD, 2 - 0.864},
		{"seconds to end", float64(f.SecondsToEnd), 1000},
		{"ledger debt", float64(f.Ledgers[0].Debt), 7_505_010_000},
		{"ledger capacity", f.Ledgers[0].CapacityUSD, 8000},
		{"ledger apy", f.Ledgers[0].APY, 0.1},
		{"ledger end time", float64(f.Ledgers[0].EndTime), float64(t0.Unix() + 1000)},
		{"collateral usd entry", f.Collateral[0].USD, 10_000},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if f.Address != key("a") || f.Borrower != wallet || !f.IsActive || !f.Ledgers[0].IsActive || f.Collateral[0].IsCLMM || f.Collateral[0].Mint != coll {
		t.Errorf("facts = %+v", f)
	}
	// The quote offers exactly the debt at an LTV of 0.8 ≥ 0.750501.
	if !f.RefinanceExpected {
		t.Error("refinance expected: got false")
	}
	for name, q := range map[string]QuoteObservation{
		"too little":         quote(7_505_009_999, 800_000),
		"LTV below the loan": quote(8_000_000_000, 750_000),
		"another term":       {PrincipalMint: usdc, Duration: days(7), Quote: market.Quote{CollateralIdentifier: coll, Amount: 8_000_000_000, Ltv: 800_000}},
	} {
		obs := observe(it)
		obs.Quotes = []QuoteObservation{q}
		if obs.facts(t0).loans[0].facts.RefinanceExpected {
			t.Errorf("%s: refinance expected", name)
		}
	}
}

func TestPositionFacts(t *testing.T) {
	obs := positionObs(clmmPosition("a", "p", clmm.DexA, clmm.Range{Lower: -500, Upper: 500}, 1000, 10))
	st := &obs.Positions[0].State
	st.Position.FeesOwed0 = 7
	st.Owed = clmm.Owed{Fees0: 7 + 30, Fees1: 2, Rewards: [clmm.NumRewards]uint64{0, 9, 0}}
	st.Pool.Rewards[1].Mint = pubkey("reward")
	f := obs.facts(t0).positions[0].facts
	// tick 1000 is 500 ticks past the upper edge of a 1000-tick range: −500 ticks, −50 %.
	// sqrt price 2^64 → raw price 1 → ×10^(9−6) = 1000.
	want := PositionFacts{Loan: key("a"), PositionMint: key("p"), Pool: pubkey("pool p").String(), Dex: clmm.DexA,
		TickLower: -500, TickUpper: 500, TickCurrent: 1000, TickSpacing: 10, InRange: false,
		DistanceTicks: -500, DistancePct: -50, OwedKnown: true, FeesOwed0: 37, FeesOwed1: 2, FeesStored0: 7,
		RewardsOwed: [clmm.NumRewards]uint64{0, 9, 0}, RewardMints: [clmm.NumRewards]string{1: pubkey("reward").String()},
		Liquidity: 123_456, Price: 1000}
	if f != want {
		t.Errorf("facts = %+v\n want %+v", f, want)
	}
	// Owed amounts that could not be computed are unknown, not the stored figure.
	st.OwedErr = errors.New("tick array missing")
	f = obs.facts(t0.Add(time.Second)).positions[0].facts
	if f.OwedKnown || f.FeesOwed0 != 0 || f.FeesStored0 != 7 || f.RewardsOwed != [clmm.NumRewards]uint64{} {
		t.Errorf("unknown owed: facts %+v", f)
	}
}

func TestWithdrawalFacts(t *testing.T) {
	obs := observe()
	obs.Withdrawals = []market.WithdrawalQueue{{Address: earnVault, Requests: []market.WithdrawalRequest{
		{RequestID: "b", RequestedAmount: 10, FilledAmount: 4},
		{RequestID: "a", RequestedAmount: 10, FilledAmount: 10, ClaimedAmount: 10},
		{RequestID: "c", RequestedAmount: 10, Cancelled: true},
	}}}
	var got []WithdrawalFacts
	for _, w := range obs.facts(t0).withdrawals {
		got = append(got, w.facts)
	}
	want := []WithdrawalFacts{
		{Vault: earnVault, RequestID: "a", Requested: 10, Filled: 10, Claimed: 10, Claimable: 10, State: "claimed", FullyFilled: true},
		{Vault: earnVault, RequestID: "b", Requested: 10, Filled: 4, Claimable: 4, State: "partially_filled"},
		{Vault: earnVault, RequestID: "c", Requested: 10, State: "cancelled"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d requests", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestConcurrentEvaluations evaluates policies over one Observation from
// several goroutines (run with -race): facts are derived once and shared.
func TestConcurrentEvaluations(t *testing.T) {
	ps, err := Parse("c.yaml", []byte(policyYAML("name: r", "kind: repay", `schedule: "@hourly"`,
		"params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}")+
		"  - {name: a, kind: alert, schedule: '@hourly', select: {target: loans}, when: 'loan.health < 0.1', params: {message: '{{.loan.address}}'}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	obs := observe(lowLoan("a"), lowLoan("b"))
	var wg sync.WaitGroup
	counts := make([]int, 8)
	for i := range counts {
		wg.Go(func() {
			res, err := Evaluate(ps[i%2], obs, t0, History{}, &State{})
			if err == nil {
				counts[i] = len(res.Actions)
			}
		})
	}
	wg.Wait()
	for i, n := range counts {
		if n != 2 {
			t.Errorf("evaluation %d planned %d actions, want 2", i, n)
		}
	}
	first := obs.facts(t0)
	if obs.facts(t0) != first || obs.facts(t0.Add(time.Second)) == first {
		t.Error("facts are not cached per evaluation time")
	}
}

// TestVaultMetricFacts: TVL 3,000 USDC (3e9 units). Lending: 1 unit/s ·
// 31,536,000 / 3e9 = 0.010512. Rewards: 1e9/1e9 = 1 reward unit per second
// at 2 USD per reward token and 1 USD per USDC (both 6 decimals) = 2
// principal units per reward unit: 31,536,000 · 2 / 3e9 = 0.021024. An
// ended schedule and a reward without a price add nothing.
func TestVaultMetricFacts(t *testing.T) {
	reward, unpriced := key("reward"), key("unpriced")
	v := lendingVault()
	v.VaultRewardsSchedule = []market.RewardSchedule{
		{RewardMint: reward, RewardStartTime: market.UnixTimeOf(t0.Add(-time.Hour)), RewardEndTime: market.UnixTimeOf(t0.Add(time.Hour)), EmissionsPerSecond: 1e9},
		{RewardMint: reward, RewardStartTime: market.UnixTimeOf(t0.Add(-2 * time.Hour)), RewardEndTime: market.UnixTimeOf(t0.Add(-time.Hour)), EmissionsPerSecond: 5e9},
		{RewardMint: unpriced, RewardStartTime: market.UnixTimeOf(t0.Add(-time.Hour)), RewardEndTime: market.UnixTimeOf(t0.Add(time.Hour)), EmissionsPerSecond: 5e9},
	}
	obs := observe()
	obs.Vaults = []market.Vault{v}
	obs.Tokens = map[string]Token{usdc: {Symbol: "USDC", Decimals: 6, PriceUSD: 1}, reward: {Decimals: 6, PriceUSD: 2}}
	f := obs.facts(t0).vaults[0].facts
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"tvl", f.TVL, 3e9}, {"lending apy", f.LendingAPY, 0.010512}, {"rewards apy", f.RewardsAPY, 0.021024},
		{"total apy", f.TotalAPY, 0.010512 + 0.021024}, {"utilisation", f.Utilisation, 1.0 / 3},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	s := obs.facts(t0).vaults[0].strategy
	if s.Idle != 1_500_000_000 || s.Deployed != 1_000_000_000 || s.External != 500_000_000 || len(s.Terms) != 1 ||
		s.Terms[0].MaxAllocationPct != 25 || s.Terms[0].APYs["7 days"] != 0.08 || s.Terms[0].APYs["30 days"] != 0.1 {
		t.Errorf("strategy facts = %+v", s)
	}
}

// TestFactsDerivedOncePerSecond: the policies of one tick evaluate one
// Observation milliseconds apart and share its derived facts; the next
// second derives them again.
func TestFactsDerivedOncePerSecond(t *testing.T) {
	obs := &Observation{}
	at := time.Date(2026, 11, 25, 12, 0, 7, 0, time.UTC)
	first := obs.facts(at.Add(120 * time.Millisecond))
	if again := obs.facts(at.Add(870 * time.Millisecond)); again != first {
		t.Error("facts derived again within the same second")
	}
	if next := obs.facts(at.Add(time.Second)); next == first || !next.now.Equal(at.Add(time.Second)) {
		t.Errorf("the next second reused the facts of %s", first.now)
	}
}
