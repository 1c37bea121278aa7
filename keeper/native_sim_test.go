package keeper

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
	"github.com/keeper-project/keeper/policies"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/signer"
)

// solLoanScenario is the default scenario, whose loan "repay-sol" of the
// wallet borrowed 9 wrapped SOL (the native mint) from strategy gamma
// against 14 JITOSOL; JITOSOL depegs at solDepeg, bringing its health to
// ~0.13.
func solLoanScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := sim.DefaultScenario()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// solDepeg is just after the default scenario's JITOSOL depeg.
const solDepeg = 41 * time.Second

// repaySOLPolicy repays wrapped-SOL loans under health 0.2 back to 0.3.
const repaySOLPolicy = `# Borrower auto-repay of a loan in wrapped SOL, paid from the wallet's native
# SOL: the market's answer wraps the amount into the wallet's wrapped-SOL
# account, syncs it, repays and closes the account back. The guard counts
# wrapped SOL as SOL: the repay may move its amount plus fees and rent.
policies:
  - name: repay-sol
    kind: repay
    schedule: "@every 5s"
    select:
      principal_mints: [So11111111111111111111111111111111111111112]   # wrapped SOL (the native mint)
    params:
      trigger_health: 0.2
      target_health: 0.3
      min_amount: 10000000         # never repay less than 0.01 SOL (9 decimals)
      max_amount: 5000000000       # nor more than 5 SOL in one action
    limits:
      cooldown: 10m
      daily_caps:
        So11111111111111111111111111111111111111112: 10000000000   # at most 10 SOL a day
    submit: { mode: rpc }
`

// TestNativeSOLRepayLands: the repay-sol policy repays a wrapped-SOL
// loan from the wallet's native SOL (wrap, sync, repay, close). The guard
// counts the amount once, and the wallet pays exactly the amount and the
// fee: the temporary account's rent comes back.
func TestNativeSOLRepayLands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: solLoanScenario(t)})
		w.writePolicy(t, "repay-sol.yaml", repaySOLPolicy)
		k := w.open(t, "")
		w.advance(t, solDepeg)
		before := w.sim.Accounts().Balance(w.wallet())
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		acts := k.actionsOf(t, "repay-sol")
		if len(acts) != 1 || acts[0].State != journal.StateLanded || acts[0].AttemptCount != 1 {
			t.Fatalf("repay-sol actions %+v, want one landed in one attempt", acts)
		}
		act := acts[0]
		paid := before - w.sim.Accounts().Balance(w.wallet())
		if want := act.Amount + act.Attempts[0].FeeLamports; act.Amount == 0 || paid != want {
			t.Errorf("wallet paid %d lamports, want the repay %d and the fee %d", paid, act.Amount, act.Attempts[0].FeeLamports)
		}
		landedOnce(t, w, act)
	})
}

// TestNativeSOLRepayBound: a repay of X wrapped SOL from native SOL passes
// with a bound of X plus the fee; one lamport less (so the same answer is
// one lamport over its bound) is refused by the simulation check.
func TestNativeSOLRepayBound(t *testing.T) {
	const x = 100_000_000
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: solLoanScenario(t)})
		k := w.open(t, "")
		w.advance(t, solDepeg)
		loan := w.address(t, ids.KindLoan, "repay-sol").String()
		plan := func(id string, maxLamports, maxTokens uint64) action.Plan {
			return action.Plan{ID: id, Policy: "repay-sol", Kind: signer.KindRepay, Target: loan,
				Request: policies.Request{BuildLoan: &market.BuildLoanRequest{Loan: loan, Steps: []market.Step{{Type: market.StepRepay,
					Params: market.StepParams{Loan: loan, RepayParams: []market.RepayParam{{LedgerIndex: 0, Amount: market.Amount(x)}}}}}}},
				Bounds: signer.Bounds{MaxLamports: maxLamports, MaxTokens: map[string]uint64{solana.WrappedSol.String(): maxTokens}},
				Mint:   solana.WrappedSol.String(), Amount: x, Reason: "test", Inputs: json.RawMessage(`{}`), Submit: action.Submit{Mode: journal.ModeRPC}}
		}
		if got := k.exec.Execute(t.Context(), "fee", plan("first", 100_000, x)).Outcome; got != action.OutcomeLanded {
			t.Fatalf("first repay: %s", got)
		}
		first, _ := k.journal.Get(t.Context(), "first")
		fee := first.Attempts[0].FeeLamports
		before := w.sim.Accounts().Balance(w.wallet())
		if got := k.exec.Execute(t.Context(), "over", plan("over", fee, x-1)).Outcome; got != action.OutcomeRefused {
			t.Fatalf("repay one lamport over its bound: %s, want refused", got)
		}
		over, _ := k.journal.Get(t.Context(), "over")
		if over.Rule != journal.Rule(signer.RuleSimulatedLamports) || w.sim.Accounts().Balance(w.wallet()) != before {
			t.Errorf("refusal %s (%s); wallet %d → %d", over.Rule, over.Detail, before, w.sim.Accounts().Balance(w.wallet()))
		}
		if got := k.exec.Execute(t.Context(), "exact", plan("exact", fee, x)).Outcome; got != action.OutcomeLanded {
			act, _ := k.journal.Get(t.Context(), "exact")
			t.Fatalf("repay at its bound: %s (%s: %s), want landed", got, act.Rule, act.Detail)
		}
		if paid := before - w.sim.Accounts().Balance(w.wallet()); paid != x+fee {
			t.Errorf("wallet paid %d, want %d", paid, x+fee)
		}
	})
}
