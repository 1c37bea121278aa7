package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// TestDefaultScenarioEvents steps through the default scenario and checks what each event does to
// what keeper reads.
func TestDefaultScenarioEvents(t *testing.T) {
	e := newEnv(t, Options{})
	usdcPerUnit := func(mint string) (float64, bool) { return 1e-6, mint == e.addr(t, ids.KindMint, "USDC").String() }
	health := func() float64 {
		item, err := e.sim.Accounts().Loan(e.addr(t, ids.KindLoan, "repay-me"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := market.ComputeLoanFacts(asClient[market.LoanItem](t, item), e.sim.Now(), usdcPerUnit)
		if err != nil {
			t.Fatal(err)
		}
		return f.Health
	}
	// fees is what the position is owed: the fee events raise the pool's fee growth and leave the
	// stored figure alone, as swaps do on chain.
	fees := func(name string) (uint64, uint64) {
		mint := e.addr(t, ids.KindPosition, name)
		owed, err := e.sim.Accounts().PositionOwed(mint)
		if err != nil {
			t.Fatal(err)
		}
		if pos, _, _ := e.sim.Accounts().Position(mint); pos.FeesOwed0 != 10_000_000 || pos.FeesOwed1 != 2_000_000 {
			t.Errorf("%s: stored fees %d/%d changed without the position being touched", name, pos.FeesOwed0, pos.FeesOwed1)
		}
		return owed.Fees0, owed.Fees1
	}
	inRange := func(name string) bool {
		pos, pool, err := e.sim.Accounts().Position(e.addr(t, ids.KindPosition, name))
		if err != nil {
			t.Fatal(err)
		}
		return pos.InRange(pool)
	}
	state := func(name string) market.WithdrawalState {
		r, err := e.sim.Accounts().WithdrawalRequest(e.addr(t, ids.KindRequest, "usdc-earn/"+name))
		if err != nil {
			t.Fatal(err)
		}
		return asClient[market.WithdrawalRequest](t, r).State()
	}
	steps := []struct {
		at    time.Duration
		check func() string
	}{
		{0, func() string {
			if h := health(); h < 0.35 || h > 0.38 {
				return "repay-me health at start not ~0.37"
			}
			if !inRange("pos-a") || state("r-full") != market.WithdrawalPartiallyFilled || state("r-partial") != market.WithdrawalOpen {
				return "start state"
			}
			return ""
		}},
		{5 * time.Second, func() string {
			vs, _ := e.sim.Accounts().Strategy(e.addr(t, ids.KindStrategy, "beta"))
			key := market.StrategyDuration{DurationType: market.DurationDays, Duration: 7}.Key()
			if vs.CollateralTerms[0].DurationsAndApys[key] != 90_000 {
				return "beta's SOL 7d APY did not fall to 90000"
			}
			return ""
		}},
		{10 * time.Second, func() string {
			if p, _ := e.sim.Accounts().Price(e.addr(t, ids.KindMint, "SOL")); p != 110 {
				return "SOL price not 110"
			}
			if h := health(); h > 0.15 || h < 0.12 {
				return "repay-me health after the drop not ~0.14"
			}
			if f0, f1 := fees("pos-b"); f0 != 60_000_000 || f1 != 7_000_000 {
				return "pos-b fees not 0.06 SOL / 7 USDC"
			}
			return ""
		}},
		{20 * time.Second, func() string {
			if inRange("pos-a") || !inRange("pos-b") {
				return "pos-a should be out of range and pos-b in range"
			}
			if state("r-full") != market.WithdrawalFilled || state("r-partial") != market.WithdrawalPartiallyFilled {
				return "withdrawal fills"
			}
			return ""
		}},
		{25 * time.Second, func() string {
			if f0, f1 := fees("pos-b"); f0 != 160_000_000 || f1 != 17_000_000 {
				return "pos-b fees not 0.16 SOL / 17 USDC"
			}
			return ""
		}},
		{30 * time.Second, func() string {
			if e.sim.w.Vaults[0].ExternalAPY != 0.01 || e.sim.Events().Pending() != 1 {
				return "alpha-vault external APY not 1 % or not just the depeg left"
			}
			return ""
		}},
		{40 * time.Second, func() string {
			if e.sim.Events().Pending() != 0 {
				return "events left after JITOSOL's depeg"
			}
			return ""
		}},
	}
	var at time.Duration
	for _, st := range steps {
		e.advance(t, st.at-at)
		at = st.at
		if msg := st.check(); msg != "" {
			t.Errorf("at %s: %s", st.at, msg)
		}
	}
}

func TestScenarioErrorsArePositioned(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "mints:\n  - {symbol: A, decimals: 2, prize: 1}\n", `s.yaml:2:30: unknown field "prize"`},
		{"duplicate mint", "mints:\n  - {symbol: A}\n  - {symbol: A}\n", `s.yaml:3:14: mint "A" is defined twice`},
		{"unknown mint", "mints:\n  - {symbol: A}\nwallet:\n  tokens: {B: \"1\"}\n", `s.yaml:4:15: token: unknown mint "B"`},
		{"too many decimals", "mints:\n  - {symbol: A, decimals: 2}\nwallet:\n  tokens: {A: \"1.001\"}\n", `s.yaml:4:15: amount "1.001" has more than 2 decimals`},
		{"bad offset", "mints:\n  - {symbol: A}\nevents:\n  - {at: soon, oracle: {A: 1}}\n", `s.yaml:4:10: event 0: at must be a non-negative offset`},
		{"two actions", "mints:\n  - {symbol: A}\nevents:\n  - {at: 1s, oracle: {A: 1}, fill: {vault: v}}\n", `s.yaml:4:5: an event needs exactly one of`},
		{"bad wallet", "mints:\n  - {symbol: A}\nstrategies:\n  - {name: s, authority: nobody, principal_mint: A}\n",
			`s.yaml:4:26: authority: "nobody" is not $wallet`},
		{"bad term", "mints:\n  - {symbol: A}\nstrategies:\n  - {name: s, authority: $wallet, principal_mint: A, terms: [{collateral: A, apys: {7x: 1}}]}\n",
			`"7x" is not a loan term`},
		{"second document", "mints: []\n---\nmints: []\n", "s.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("s.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWalletPlaceholder(t *testing.T) {
	s, err := New(Options{Clock: nil})
	if err != nil {
		t.Fatal(err)
	}
	if s.Wallet() != DefaultWallet() {
		t.Errorf("wallet %s, want the default %s", s.Wallet(), DefaultWallet())
	}
	item, err := s.Accounts().Loan(s.mustAddress(t, ids.KindLoan, "repay-me"))
	if err != nil || item.Loan.Borrower != DefaultWallet().String() {
		t.Errorf("repay-me borrower %s (%v), want the default wallet", item.Loan.Borrower, err)
	}
	usdc := s.mustAddress(t, ids.KindMint, "USDC")
	if got := s.Accounts().TokenBalance(DefaultWallet(), usdc); got != 1_000_000_000 {
		t.Errorf("wallet holds %d USDC base units, want 1000000000", got)
	}
	if got := s.Accounts().Balance(DefaultWallet()); got != 10_000_000_000 {
		t.Errorf("wallet holds %d lamports, want 10 SOL", got)
	}
}

// mustAddress looks a name up or fails the test.
func (s *Sim) mustAddress(t *testing.T, kind, name string) solana.PublicKey {
	t.Helper()
	k, ok := s.Accounts().Address(kind, name)
	if !ok {
		t.Fatalf("no %s %q", kind, name)
	}
	return k
}
