package keeper

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/policies"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/signer"
)

// TestClaimIntoWalletWithoutTokenAccount: the wallet has no token account
// for the mint a filled withdrawal pays, so the market's answer creates it
// in a first transaction and claims into it in a second, one bundle (E10
// answers land as one bundle). Simulated in order, the claim lands in one
// attempt, each transaction once. Simulating each transaction alone on the
// state now fails the claim on every attempt.
func TestClaimIntoWalletWithoutTokenAccount(t *testing.T) {
	for _, mode := range []string{"bundle"} {
		t.Run(mode, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, "claim-withdrawals.yaml")
				k := w.open(t, "")
				w.advance(t, 25*time.Second)
				usdc := w.usdc(t)
				ata, err := svm.AssociatedTokenAddress(w.wallet(), usdc)
				if err != nil {
					t.Fatal(err)
				}
				w.sim.Chain().State.SetAccount(ata, svm.Account{})
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("RunOnce: %v", err)
				}
				acts := k.actionsOf(t, "claim-earn-withdrawals")
				if len(acts) != 1 {
					t.Fatalf("%d actions, want 1", len(acts))
				}
				act := acts[0]
				if act.State != journal.StateLanded || act.AttemptCount != 1 || len(act.Attempts[0].Signatures) != 2 {
					t.Fatalf("claim %s after %d attempts (%s: %s), want landed in 1 attempt of 2 transactions", act.State, act.AttemptCount, act.Rule, act.Detail)
				}
				if got := w.sim.Accounts().TokenBalance(w.wallet(), usdc); got != 300_000_000 {
					t.Errorf("wallet holds %d USDC units, want the 300 USDC claimed", got)
				}
				landedOnce(t, w, act)
				before := len(w.landed.paidBy(w.wallet()))
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("second RunOnce: %v", err)
				}
				if n := len(w.landed.paidBy(w.wallet())); n != before {
					t.Errorf("second run landed %d more transactions", n-before)
				}
			})
		})
	}
}

// landedOnce asserts that every journaled transaction of act landed exactly
// once and nothing else of its was sent.
func landedOnce(t *testing.T, w *simWorld, act journal.Action) {
	t.Helper()
	seen := map[solana.Signature]int{}
	for _, l := range w.landed.paidBy(w.wallet()) {
		seen[l.Signature]++
	}
	for _, att := range act.Attempts {
		for _, s := range att.Signatures {
			sig := solana.MustSignatureFromBase58(s.Signature)
			if _, ok := w.sim.Chain().Ledger.Transaction(sig); !ok {
				t.Errorf("attempt %d: transaction %s did not land", att.Number, s.Signature)
			}
			if seen[sig] > 1 {
				t.Errorf("transaction %s landed %d times", s.Signature, seen[sig])
			}
		}
	}
}

// splitUpdatePlan is a strategy update of strategy alpha large enough that
// the market splits it over several transactions, each applying only after
// the one before it.
func splitUpdatePlan(t *testing.T, w *simWorld, mode journal.Mode) action.Plan {
	t.Helper()
	alpha := w.address(t, ids.KindStrategy, "alpha")
	solMint := w.address(t, ids.KindMint, "SOL").String()
	apys := map[market.StrategyDuration]market.CBPS{}
	for d := int32(1); d <= 40; d++ {
		apys[market.StrategyDuration{DurationType: market.DurationDays, Duration: d}] = market.CBPS(100_000 + d)
	}
	req := market.StrategyUpdateRequest{Strategy: alpha.String(), CollateralTerms: &market.CollateralTerms{
		UpdateCollateral: map[string]market.CollateralParamsUpdate{solMint: {ApyUpdate: market.DurationAPYs(apys)}}}}
	return action.Plan{ID: "split-update-" + string(mode), Policy: "split-update", Kind: signer.KindStrategyUpdate, Target: alpha.String(),
		Request: policies.Request{StrategyUpdate: &req}, Bounds: signer.Bounds{MaxLamports: 1_000_000}, Reason: "test: 40 durations",
		Inputs: json.RawMessage(`{}`), Submit: action.Submit{Mode: mode, TipCap: 100_000}}
}

// alphaAPY40 is strategy alpha's SOL APY at 40 days, 0 when unset.
func alphaAPY40(t *testing.T, w *simWorld) market.CBPS {
	t.Helper()
	vs, err := w.sim.Accounts().Strategy(w.address(t, ids.KindStrategy, "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	key := market.StrategyDuration{DurationType: market.DurationDays, Duration: 40}.Key()
	return market.CBPS(vs.CollateralTerms[0].DurationsAndApys[key])
}

// TestSplitStrategyUpdateLands: an E1 answer of several transactions, each
// depending on the one before, lands in one attempt by RPC (each simulated
// right before its own send) and as a bundle (simulated in order).
func TestSplitStrategyUpdateLands(t *testing.T) {
	for _, mode := range []journal.Mode{journal.ModeRPC, journal.ModeBundle} {
		t.Run(string(mode), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				k := w.open(t, "")
				w.advance(t, 2*time.Second)
				p := splitUpdatePlan(t, w, mode)
				if got := k.exec.Execute(t.Context(), "test", p).Outcome; got != action.OutcomeLanded {
					act, _ := k.journal.Get(t.Context(), p.ID)
					t.Fatalf("outcome %s (%s: %s), want landed", got, act.Rule, act.Detail)
				}
				act, err := k.journal.Get(t.Context(), p.ID)
				if err != nil {
					t.Fatal(err)
				}
				if act.AttemptCount != 1 || len(act.Attempts[0].Signatures) < 2 {
					t.Fatalf("%d attempts, %d transactions; want one attempt of several", act.AttemptCount, len(act.Attempts[0].Signatures))
				}
				if got := alphaAPY40(t, w); got != 100_040 {
					t.Errorf("APY at 40 days %d, want 100040 once every step landed", got)
				}
				landedOnce(t, w, act)
			})
		})
	}
}

// TestSequenceStoppedMidwayContinues: the second transaction of an RPC
// sequence never lands (the node drops it) after the first landed; the
// attempt expires saying so, and the next attempt sends only the rest.
func TestSequenceStoppedMidwayContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		k := w.open(t, "")
		w.advance(t, 2*time.Second)
		p := splitUpdatePlan(t, w, journal.ModeRPC)
		drop := chainsim.Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{
			"sendTransaction": {Rates: inject.Rates{NeverLand: 1}}}}}
		armed := false
		w.sim.Chain().OnLanded(func(l chainsim.Landed) {
			if !armed && len(l.AccountKeys) > 0 && l.AccountKeys[0] == w.wallet() {
				armed = true
				if err := w.sim.Chain().SetFaults(drop); err != nil {
					t.Error(err)
				}
			}
		})
		if got := k.exec.Execute(t.Context(), "first", p).Outcome; got != action.OutcomeRetry {
			t.Fatalf("first run %s, want retry", got)
		}
		act, _ := k.journal.Get(t.Context(), p.ID)
		if act.State != journal.StateExpired || act.Rule != journal.RuleSequencePartial || !strings.Contains(act.Detail, "transaction 0 of") {
			t.Fatalf("after the stop: %s %s %q", act.State, act.Rule, act.Detail)
		}
		if err := w.sim.Chain().SetFaults(chainsim.Faults{}); err != nil {
			t.Fatal(err)
		}
		if got := k.exec.Execute(t.Context(), "second", p).Outcome; got != action.OutcomeLanded {
			act, _ := k.journal.Get(t.Context(), p.ID)
			t.Fatalf("second run %s (%s: %s), want landed", got, act.Rule, act.Detail)
		}
		act, _ = k.journal.Get(t.Context(), p.ID)
		first, second := act.Attempts[0], act.Attempts[1]
		if len(second.Signatures) != len(second.Transactions)-1 {
			t.Errorf("second attempt signed %d of %d transactions, want all but the one that landed", len(second.Signatures), len(second.Transactions))
		}
		if _, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(first.Signatures[0].Signature)); !ok {
			t.Error("the first attempt's first transaction is not on chain")
		}
		for _, s := range second.Signatures {
			if _, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(s.Signature)); !ok {
				t.Errorf("second attempt transaction %s did not land", s.Signature)
			}
		}
		if got, want := len(w.landed.paidBy(w.wallet())), len(second.Transactions); got != want {
			t.Errorf("%d transactions landed, want the %d of the answer, each once", got, want)
		}
		if got := alphaAPY40(t, w); got != 100_040 {
			t.Errorf("APY at 40 days %d, want 100040", got)
		}
	})
}

// TestClaimOfClaimedRequestIsDone: a claim of a request that was claimed
// after keeper planned it (the market answers 400) is settled as done with
// the reason, not failed.
func TestClaimOfClaimedRequestIsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "claim-withdrawals.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		first := k.actionsOf(t, "claim-earn-withdrawals")[0]
		if first.State != journal.StateLanded {
			t.Fatalf("first claim %s", first.State)
		}
		p := action.Plan{ID: "claim-again", Policy: "claim-earn-withdrawals", Kind: signer.KindClaimWithdrawals, Target: first.Target,
			Request: policies.Request{WithdrawClaim: &market.WithdrawClaimRequest{Address: w.address(t, ids.KindEarn, "usdc-earn").String(), Wallet: w.wallet().String(),
				RequestID: w.address(t, ids.KindRequest, "usdc-earn/r-full").String()}},
			Bounds: signer.Bounds{MaxLamports: 100_000}, Inputs: json.RawMessage(`{}`), Submit: action.Submit{Mode: journal.ModeBundle, TipCap: 50_000}}
		if got := k.exec.Execute(t.Context(), "again", p).Outcome; got != action.OutcomeAlreadyDone {
			act, _ := k.journal.Get(t.Context(), p.ID)
			t.Fatalf("outcome %s (%s: %s), want %s", got, act.Rule, act.Detail, action.OutcomeAlreadyDone)
		}
		act, err := k.journal.Get(t.Context(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !act.State.Final() || act.Rule != journal.RuleAlreadyClaimed || !strings.Contains(act.Detail, "claimed already") {
			t.Errorf("journal: %s %s %q; want final, already-claimed, with the reason", act.State, act.Rule, act.Detail)
		}
	})
}

// TestPaidIntoWalletWithoutTokenAccount: E8 fee claims and E9 strategy
// withdrawals into a wallet without a token account for the mint they pay
// (E8 and E9 answer one transaction, which creates the account first) land
// in one attempt.
func TestPaidIntoWalletWithoutTokenAccount(t *testing.T) {
	for _, tc := range []struct {
		file, policy string
		wait         time.Duration
	}{
		{"claim-fees.yaml", "claim-fees-dex-b", 30 * time.Second},
		{"vault-upkeep.yaml", "sweep-idle-principal", 10 * time.Second},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, tc.file)
				k := w.open(t, "")
				w.advance(t, tc.wait)
				usdc := w.usdc(t)
				ata, err := svm.AssociatedTokenAddress(w.wallet(), usdc)
				if err != nil {
					t.Fatal(err)
				}
				w.sim.Chain().State.SetAccount(ata, svm.Account{})
				_ = k.RunOnce(t.Context())
				acts := k.actionsOf(t, tc.policy)
				if len(acts) != 1 || acts[0].State != journal.StateLanded || acts[0].AttemptCount != 1 {
					t.Fatalf("%s: %+v, want one action landed in one attempt", tc.policy, acts)
				}
				if w.sim.Accounts().TokenBalance(w.wallet(), usdc) == 0 {
					t.Error("nothing was paid into the new token account")
				}
				landedOnce(t, w, acts[0])
			})
		})
	}
}
