package keeper

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// TestTokensFromChain: with no `tokens:` in the config, keeper learns each mint's decimals and
// symbol from the simulated chain (a Metaplex metadata account for SPL mints, the metadata
// extension of the Token-2022 JTO mint), and a repay's reason shows a human amount.
func TestTokensFromChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		if k.obs.tokenBook == nil {
			t.Fatal("no token book over the chain client")
		}
		var mints []solana.PublicKey
		want := map[solana.PublicKey]string{}
		for _, sym := range []string{"USDC", "SOL", "JITOSOL", "JTO"} {
			m := w.address(t, ids.KindMint, sym)
			mints, want[m] = append(mints, m), sym
		}
		if err := k.obs.tokenBook.Learn(t.Context(), mints); err != nil {
			t.Fatal(err)
		}
		decimals := map[string]uint8{"USDC": 6, "SOL": 9, "JITOSOL": 9, "JTO": 9}
		for m, sym := range want {
			if got, ok := k.obs.tokenBook.Lookup(m); !ok || got.Symbol != sym || got.Decimals != decimals[sym] {
				t.Errorf("%s: learned %+v, %v; want %s with %d decimals", m, got, ok, sym, decimals[sym])
			}
		}
		w.advance(t, 12*time.Second) // SOL fell at 10 s
		pl, err := k.Plan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range pl {
			for _, a := range r.Result.Actions {
				if a.Policy == "auto-repay" {
					found = true
					if !strings.Contains(a.Reason, "repay 151.746575 USDC on ledger 0") {
						t.Errorf("reason %q, want the amount in USDC", a.Reason)
					}
				}
			}
		}
		if !found {
			t.Error("auto-repay planned nothing")
		}
	})
}
