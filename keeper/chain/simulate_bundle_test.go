package chain_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
)

// TestChainsimSimulateSequence simulates a sequence whose second
// transaction depends on the first: alone it fails, in order it runs on
// what the first left, and each result measures that transaction's own
// outflows.
func TestChainsimSimulateSequence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		friend := newKey(t)
		w := e.wallet.PublicKey()
		waitSlots(2)
		bh := e.blockhash(t)
		tx1 := signTx(t, []solana.Instruction{transferIx(w, friend.PublicKey(), 1_000_000)}, bh, e.wallet)
		tx2 := signTx(t, []solana.Instruction{transferIx(friend.PublicKey(), w, 400_000)}, bh, friend)
		var se *chain.SimError
		if _, err := e.client.Simulate(t.Context(), tx2.Raw, w); !errors.As(err, &se) {
			t.Fatalf("the second transaction alone: %v, want a simulation failure", err)
		}
		res, err := e.client.SimulateSequence(t.Context(), [][]byte{tx1.Raw, tx2.Raw}, w)
		if err != nil {
			t.Fatalf("SimulateSequence: %v", err)
		}
		if len(res) != 2 || res[0].Outflows.Lamports != 1_000_000+chain.LamportsPerSignature || res[1].Outflows.Lamports != -400_000 {
			t.Fatalf("outflows %+v / %+v, want 1,005,000 then an inflow of 400,000", res[0].Outflows, res[1].Outflows)
		}
		tx3 := signTx(t, []solana.Instruction{transferIx(friend.PublicKey(), w, 2_000_000)}, bh, friend)
		res, err = e.client.SimulateSequence(t.Context(), [][]byte{tx1.Raw, tx3.Raw}, w)
		if !errors.As(err, &se) || se.Index != 1 || len(res) != 2 {
			t.Fatalf("overdrawn second transaction: %d results, %v; want a *SimError at index 1", len(res), err)
		}
		if e.sim.Balance(friend.PublicKey()) != 0 {
			t.Fatal("the simulation changed the chain")
		}
	})
}
