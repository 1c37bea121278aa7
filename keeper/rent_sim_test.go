package keeper

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// TestNativeSOLRepayThatStrandsTheWalletIsRefused: a repay of native SOL that would leave the
// wallet above zero but below its rent-exempt minimum fails on chain (InsufficientFundsForRent,
// its fee charged), so the guard refuses it (stranded-wallet) before signing, even on a node that
// does not check rent in simulation; the same repay from a wallet that stays exempt lands.
func TestNativeSOLRepayThatStrandsTheWalletIsRefused(t *testing.T) {
	const x = 100_000_000
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: solLoanScenario(t)})
		k := w.open(t, "")
		w.advance(t, solDepeg)
		loan := w.address(t, ids.KindLoan, "repay-sol").String()
		plan := func(id string) action.Plan {
			return action.Plan{ID: id, Policy: "repay-sol", Kind: signer.KindRepay, Target: loan,
				Request: policies.Request{BuildLoan: &market.BuildLoanRequest{Loan: loan, Steps: []market.Step{{Type: market.StepRepay,
					Params: market.StepParams{Loan: loan, RepayParams: []market.RepayParam{{LedgerIndex: 0, Amount: market.Amount(x)}}}}}}},
				Bounds: signer.Bounds{MaxLamports: 1_000_000, MaxTokens: map[string]uint64{solana.WrappedSol.String(): x}},
				Mint:   solana.WrappedSol.String(), Amount: x, Reason: "test", Inputs: json.RawMessage(`{}`), Submit: action.Submit{Mode: journal.ModeRPC}}
		}
		setBalance := func(lamports uint64) {
			t.Helper()
			err := w.sim.Chain().State.UpdateAccount(w.wallet(), func(a svm.Account, _ bool) (svm.Account, error) {
				a.Lamports = lamports
				return a, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			w.advance(t, time.Second) // until the confirmed bank the guard simulates on holds it
		}
		// The wallet's wrapped-SOL account exists, so the repay wraps into it and does not close it:
		// the wallet keeps what it held less the repay and the fee, under 890,880.
		if err := w.sim.Chain().Setup.MintTo(w.wallet(), solana.WrappedSol, 0); err != nil {
			t.Fatal(err)
		}
		setBalance(x + 600_000)
		if got := k.exec.Execute(t.Context(), "strand", plan("strand")).Outcome; got != action.OutcomeRefused {
			act, _ := k.journal.Get(t.Context(), "strand")
			t.Fatalf("repay stranding the wallet: %s (%s: %s), want refused", got, act.Rule, act.Detail)
		}
		if act, _ := k.journal.Get(t.Context(), "strand"); act.Rule != journal.Rule(signer.RuleStrandedWallet) {
			t.Fatalf("refusal %s (%s), want %s", act.Rule, act.Detail, signer.RuleStrandedWallet)
		}
		setBalance(x + 10_000_000)
		if got := k.exec.Execute(t.Context(), "exempt", plan("exempt")).Outcome; got != action.OutcomeLanded {
			act, _ := k.journal.Get(t.Context(), "exempt")
			t.Fatalf("repay leaving the wallet exempt: %s (%s: %s), want landed", got, act.Rule, act.Detail)
		}
	})
}
