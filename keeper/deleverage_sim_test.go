package keeper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// swapConfigYAML points keeper's aggregator at the simulator's Jupiter API.
const swapConfigYAML = simConfigYAML + `swap:
  base_url: http://` + simMarketHost + `/v1` + sim.JupiterPrefix + `
  programs: [SimSwap111111111111111111111111111111111111]
`

// deleverageWorld is the default scenario with a SOL/USDC pool of 10,000 SOL, a wallet holding
// walletUSDC whole USDC, and examples/policies/deleverage.yaml; SOL has fallen from 150 to 110
// (the scenario's 10 s event) and the pool follows the oracle.
func deleverageWorld(t *testing.T, walletUSDC string, amm scenario.AMMSpec) (*simWorld, *simKeeper) {
	sc, err := sim.DefaultScenario()
	if err != nil {
		t.Fatal(err)
	}
	sc.Wallet.Tokens = map[string]string{"USDC": walletUSDC}
	sc.AMMs = append(sc.AMMs, amm)
	w := newSimWorld(t, simOptions{scenario: sc, configYAML: swapConfigYAML})
	w.usePolicies(t, "deleverage.yaml")
	k := w.open(t, "")
	w.advance(t, 15*time.Second)
	if err := w.sim.SetAMM(amm.Name, amm.BaseReserve, 110); err != nil {
		t.Fatal(err)
	}
	w.advance(t, 2*time.Second) // a simulation at confirmed sees the pool as moved
	return w, k
}

// solUSDC is the pool the tests sell through.
var solUSDC = scenario.AMMSpec{Name: "sol-usdc", Base: "SOL", Quote: "USDC", BaseReserve: 10000, FeeBps: 30}

// TestDeleverageSellsCollateralOnce: a wallet with no USDC; SOL falls; the loan is brought back to
// its target by selling SOL, once, within the oracle bound, and a second run has nothing to do.
func TestDeleverageSellsCollateralOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := deleverageWorld(t, "0", solUSDC)
		loan := w.address(t, ids.KindLoan, "repay-me")
		if h := loanHealth(t, w, "repay-me"); h >= 0.2 {
			t.Fatalf("health before %.3f, want under 0.2", h)
		}
		before, err := w.sim.Accounts().Loan(loan)
		if err != nil {
			t.Fatal(err)
		}
		poolBefore := w.sim.AMMs()["sol-usdc"]
		for range 2 {
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("%v: %+v", err, k.actionsOf(t, "deleverage"))
			}
		}
		acts := k.actionsOf(t, "deleverage")
		if len(acts) != 1 || acts[0].State != journal.StateLanded || acts[0].Kind != "repay-collateral" {
			t.Fatalf("actions %+v, want one landed repay-collateral", acts)
		}
		after, err := w.sim.Accounts().Loan(loan)
		if err != nil {
			t.Fatal(err)
		}
		repaid := uint64(after.Ledgers[0].PrincipalRepaid - before.Ledgers[0].PrincipalRepaid)
		sold := uint64(before.Collateral[0].Amount - after.Collateral[0].Amount)
		// The bound: the oracle value of the repaid debt (at 110 USD per SOL) plus 2 %.
		bound := uint64(float64(repaid) / 110 * 1000 * 1.02)
		if repaid == 0 || sold == 0 || sold > bound {
			t.Errorf("repaid %d USDC units selling %d lamports of SOL, bound %d", repaid, sold, bound)
		}
		if h := loanHealth(t, w, "repay-me"); h < 0.28 || h > 0.32 {
			t.Errorf("health after %.4f, want about the target 0.3", h)
		}
		// Just enough: the pool took the oracle value of the debt plus its fee (0.3 %) and impact
		// (under 0.1 % at this depth), not the bound; the loan lost that plus the quote's slippage
		// (0.5 %), which stays in the wallet.
		poolAfter := w.sim.AMMs()["sol-usdc"]
		value := float64(repaid) / 110 * 1000
		spent := uint64((poolAfter.BaseReserve - poolBefore.BaseReserve) * 1e9)
		if poolAfter.Swaps != poolBefore.Swaps+1 || float64(spent) < value || float64(spent) > value*1.005 {
			t.Errorf("the pool took %d lamports in %d swaps for %d USDC units (oracle value %.0f), want one swap of at most 0.5 %% above it",
				spent, poolAfter.Swaps-poolBefore.Swaps, repaid, value)
		}
		if float64(sold) > value*1.01 {
			t.Errorf("the loan lost %d lamports, want at most 1 %% above the oracle value %.0f (the bound is %d)", sold, value, bound)
		}
	})
}

// TestDeleverageFallsBackToExactIn: a pool whose DEX cannot quote ExactOut is sold through ExactIn:
// the whole bound is sold, within it, and the loan reaches its target.
func TestDeleverageFallsBackToExactIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		amm := solUSDC
		amm.NoExactOut = true
		w, k := deleverageWorld(t, "0", amm)
		loan := w.address(t, ids.KindLoan, "repay-me")
		before, _ := w.sim.Accounts().Loan(loan)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("%v: %+v", err, k.actionsOf(t, "deleverage"))
		}
		after, _ := w.sim.Accounts().Loan(loan)
		repaid := uint64(after.Ledgers[0].PrincipalRepaid - before.Ledgers[0].PrincipalRepaid)
		sold := uint64(before.Collateral[0].Amount - after.Collateral[0].Amount)
		value := float64(repaid) / 110 * 1000
		if float64(sold) < value*1.015 || float64(sold) > value*1.02 || w.sim.AMMs()["sol-usdc"].Swaps != 1 {
			t.Errorf("sold %d lamports for %d USDC units (oracle value %.0f) in %d swaps, want the bound (2 %% above) in one",
				sold, repaid, value, w.sim.AMMs()["sol-usdc"].Swaps)
		}
	})
}

// TestDeleverageRefusesSlippageAboveTheBound: the pool pays 5 % under the oracle: nothing is sold,
// the action is refused under the swap-price rule and alerted.
func TestDeleverageRefusesSlippageAboveTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := deleverageWorld(t, "0", solUSDC)
		if err := w.sim.SetAMM("sol-usdc", 10000, 104.5); err != nil {
			t.Fatal(err)
		}
		loan := w.address(t, ids.KindLoan, "repay-me")
		before, _ := w.sim.Accounts().Loan(loan)
		if err := k.RunOnce(t.Context()); err == nil {
			t.Fatal("RunOnce reported no refused action")
		}
		acts := k.actionsOf(t, "deleverage")
		if len(acts) != 1 || acts[0].State != journal.StateRefused || acts[0].Rule != "swap-price" {
			t.Fatalf("actions %+v, want one refused under swap-price", acts)
		}
		after, _ := w.sim.Accounts().Loan(loan)
		if after.Collateral[0].Amount != before.Collateral[0].Amount {
			t.Errorf("collateral %d → %d: something was sold", before.Collateral[0].Amount, after.Collateral[0].Amount)
		}
		if len(w.hook.messages()) == 0 {
			t.Error("the refusal was not alerted")
		}
	})
}

// TestDeleverageAutoRepaysFromTheWallet: with USDC in the wallet, auto sells nothing.
func TestDeleverageAutoRepaysFromTheWallet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := deleverageWorld(t, "1000", solUSDC)
		loan := w.address(t, ids.KindLoan, "repay-me")
		before, _ := w.sim.Accounts().Loan(loan)
		usdc := w.usdc(t)
		walletBefore := w.sim.Accounts().TokenBalance(w.wallet(), usdc)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		after, _ := w.sim.Accounts().Loan(loan)
		if after.Collateral[0].Amount != before.Collateral[0].Amount {
			t.Errorf("collateral %d → %d: auto sold collateral with USDC in the wallet", before.Collateral[0].Amount, after.Collateral[0].Amount)
		}
		repaid := uint64(after.Ledgers[0].PrincipalRepaid - before.Ledgers[0].PrincipalRepaid)
		if spent := walletBefore - w.sim.Accounts().TokenBalance(w.wallet(), usdc); repaid == 0 || spent != repaid {
			t.Errorf("repaid %d, wallet spent %d", repaid, spent)
		}
	})
}

// dyingJournal fails one durable step once, as a process that died right before it would leave the
// journal: the step's write never happens.
type dyingJournal struct {
	Journal
	step string
	done bool
}

var errDied = errors.New("the process died here")

func (j *dyingJournal) die(step string) bool {
	if j.step != step || j.done {
		return false
	}
	j.done = true
	return true
}

func (j *dyingJournal) RecordSigned(ctx context.Context, id string, attempt int, sigs []journal.SignedTx) error {
	if j.die("RecordSigned") {
		return errDied
	}
	return j.Journal.RecordSigned(ctx, id, attempt, sigs)
}

func (j *dyingJournal) Settle(ctx context.Context, id string, attempt int, out journal.Outcome) error {
	if j.die("Settle") {
		return errDied
	}
	return j.Journal.Settle(ctx, id, attempt, out)
}

// TestDeleverageCrashSettlesWithoutASecondSale: the process dies before the signatures are
// journaled (nothing was sent: the next attempt quotes and builds afresh), or after the sale landed
// but before its outcome was journaled (recovery settles it from the chain). Either way a new
// process on the same journal sells collateral exactly once.
func TestDeleverageCrashSettlesWithoutASecondSale(t *testing.T) {
	for _, step := range []string{"RecordSigned", "Settle"} {
		t.Run(step, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sc, err := sim.DefaultScenario()
				if err != nil {
					t.Fatal(err)
				}
				sc.Wallet.Tokens = map[string]string{"USDC": "0"}
				sc.AMMs = append(sc.AMMs, solUSDC)
				w := newSimWorld(t, simOptions{scenario: sc, configYAML: swapConfigYAML})
				w.usePolicies(t, "deleverage.yaml")
				dsn := "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
				w.journalOf = func(j *journal.Journal) Journal { return &dyingJournal{Journal: j, step: step} }
				first := w.open(t, dsn)
				w.advance(t, 15*time.Second)
				if err := w.sim.SetAMM("sol-usdc", 10000, 110); err != nil {
					t.Fatal(err)
				}
				loan := w.address(t, ids.KindLoan, "repay-me")
				before, _ := w.sim.Accounts().Loan(loan)
				_ = first.RunOnce(t.Context()) // dies at step
				_ = first.Close()
				w.journalOf = nil
				second := w.open(t, dsn)
				if err := second.Recover(t.Context()); err != nil {
					t.Fatalf("Recover: %v", err)
				}
				w.advance(t, 11*time.Minute) // past the cooldown, so a wrong second sale would be planned
				for range 2 {
					_ = second.RunOnce(t.Context())
				}
				after, _ := w.sim.Accounts().Loan(loan)
				sales := 0
				for _, x := range w.landed.paidBy(w.wallet()) {
					if x.Err == nil {
						sales++
					}
				}
				if sales != 1 || after.Collateral[0].Amount >= before.Collateral[0].Amount {
					t.Errorf("%d transactions of the wallet landed, collateral %d → %d: want exactly one sale", sales, before.Collateral[0].Amount, after.Collateral[0].Amount)
				}
				if h := loanHealth(t, w, "repay-me"); h < 0.28 {
					t.Errorf("health after %.4f", h)
				}
			})
		})
	}
}

// TestDeleverageRefusesHostileSwaps: an unknown program hidden in the aggregator's setup is refused
// before the market builds (swap-program); a route that pays its output to a stranger leaves the
// flash loan to the wallet's own USDC, which the simulation shows leaving it (simulated-tokens).
// Nothing is sold either way.
func TestDeleverageRefusesHostileSwaps(t *testing.T) {
	for hostile, rule := range map[string]string{scenario.AMMHostileHiddenProgram: "swap-program", scenario.AMMHostileStrangerOutput: "simulated-tokens"} {
		t.Run(hostile, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				amm := solUSDC
				amm.Hostile = hostile
				w, k := deleverageWorld(t, "1000", amm)
				data, err := os.ReadFile(filepath.Join("..", "examples", "policies", "deleverage.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				w.writePolicy(t, "deleverage.yaml", strings.Replace(string(data), "source: auto", "source: collateral", 1))
				loan := w.address(t, ids.KindLoan, "repay-me")
				before, _ := w.sim.Accounts().Loan(loan)
				_ = k.RunOnce(t.Context())
				acts := k.actionsOf(t, "deleverage")
				if len(acts) != 1 || acts[0].State != journal.StateRefused || string(acts[0].Rule) != rule {
					t.Fatalf("actions %+v, want one refused under %s", acts, rule)
				}
				after, _ := w.sim.Accounts().Loan(loan)
				if after.Collateral[0].Amount != before.Collateral[0].Amount {
					t.Errorf("collateral %d → %d: something was sold", before.Collateral[0].Amount, after.Collateral[0].Amount)
				}
			})
		})
	}
}

// TestDeleveragePlanShowsTheQuote: plan reads the aggregator's quote of the sale and shows its price
// against the oracle's; when no quote can be read it says so and keeps the oracle bound.
func TestDeleveragePlanShowsTheQuote(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			name string
			amm  scenario.AMMSpec
			want []string
		}{
			{"quoted", solUSDC, []string{"aggregator quote (read now; it may move before the action builds): sells 3.52",
				"against the oracle's 110 (-0.3", "ExactOut; bound 3.579508013 SOL"}},
			{"no route", scenario.AMMSpec{Name: "jitosol-usdc", Base: "JITOSOL", Quote: "USDC", BaseReserve: 10000, FeeBps: 30},
				[]string{"aggregator quote unavailable (jupiter: quote: HTTP 400: ", "the oracle bound holds: at most 3.579508013 SOL sold at 110"}},
		} {
			_, k := deleverageWorld(t, "0", tc.amm)
			plans, err := k.Plan(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var got []SaleQuote
			for _, p := range plans {
				for _, a := range p.Actions {
					if q, ok := p.SaleQuotes[a.ID]; ok {
						got = append(got, q)
					}
				}
			}
			if len(got) != 1 {
				t.Fatalf("%s: quotes %+v, want one", tc.name, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0].Summary, w) {
					t.Errorf("%s: summary %q, want %q", tc.name, got[0].Summary, w)
				}
			}
			if tc.name == "quoted" && (got[0].Price < 109 || got[0].Price >= 110 || got[0].OraclePrice != 110) {
				t.Errorf("quoted price %v against the oracle's %v, want a little under 110", got[0].Price, got[0].OraclePrice)
			}
		}
	})
}
