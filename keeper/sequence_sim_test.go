package keeper

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
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
				ata, err := chainsim.AssociatedTokenAddress(w.wallet(), usdc)
				if err != nil {
					t.Fatal(err)
				}
				w.sim.Chain().SetAccount(ata, chainsim.Account{})
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
				if got := w.sim.TokenBalance(w.wallet(), usdc); got != 300_000_000 {
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
			if _, ok := w.sim.Chain().Transaction(sig); !ok {
				t.Errorf("attempt %d: transaction %s did not land", att.Number, s.Signature)
			}
			if seen[sig] > 1 {
				t.Errorf("transaction %s landed %d times", s.Signature, seen[sig])
			}
		}
	}
}
