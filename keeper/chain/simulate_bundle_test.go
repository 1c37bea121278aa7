package chain_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/gagliardetto/solana-go"
	ata "github.com/gagliardetto/solana-go/programs/associated-token-account"
	"github.com/gagliardetto/solana-go/programs/token"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
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
		res, err := e.client.SimulateSequence(t.Context(), [][]byte{unsignedByWallet(tx1.Raw), tx2.Raw}, w)
		if err != nil {
			t.Fatalf("SimulateSequence: %v", err)
		}
		if len(res) != 2 || res[0].Outflows.Lamports != 1_000_000+chain.LamportsPerSignature || res[1].Outflows.Lamports != -400_000 {
			t.Fatalf("outflows %+v / %+v, want 1,005,000 then an inflow of 400,000", res[0].Outflows, res[1].Outflows)
		}
		// Unsigned by the wallet, as keeper simulates before signing: two
		// transactions whose first signatures are both zero are not
		// duplicates (Jito-Solana tells duplicates by message hash). The
		// same sequence signed by the wallet is refused before it is sent.
		tx4 := signTx(t, []solana.Instruction{transferIx(w, friend.PublicKey(), 7)}, bh, e.wallet)
		bare, err := e.client.SimulateSequence(t.Context(), [][]byte{unsignedByWallet(tx1.Raw), unsignedByWallet(tx4.Raw)}, w)
		if err != nil || len(bare) != 2 || bare[0].Outflows.Lamports != 1_000_000+chain.LamportsPerSignature || bare[1].Outflows.Lamports != 7+chain.LamportsPerSignature {
			t.Fatalf("SimulateSequence unsigned: %v, %v; want 1,005,000 then 5,007", bare, err)
		}
		before := e.rpc.count("simulateBundle")
		if _, err := e.client.SimulateSequence(t.Context(), [][]byte{tx1.Raw, tx4.Raw}, w); !errors.Is(err, chain.ErrSignedByWallet) {
			t.Fatalf("SimulateSequence signed by the wallet: %v, want ErrSignedByWallet", err)
		}
		if e.rpc.count("simulateBundle") != before {
			t.Error("a sequence the wallet signed was sent for simulation")
		}
		tx3 := signTx(t, []solana.Instruction{transferIx(friend.PublicKey(), w, 2_000_000)}, bh, friend)
		res, err = e.client.SimulateSequence(t.Context(), [][]byte{unsignedByWallet(tx1.Raw), tx3.Raw}, w)
		if !errors.As(err, &se) || se.Index != 1 || len(res) != 2 {
			t.Fatalf("overdrawn second transaction: %d results, %v; want a *SimError at index 1", len(res), err)
		}
		if e.sim.State.Balance(friend.PublicKey()) != 0 {
			t.Fatal("the simulation changed the chain")
		}
	})
}

// TestChainsimWrappedSOLRepayOutflow: a repay of X wrapped SOL from native
// SOL (wrap, sync, transfer, close back) is X plus the fee leaving the
// wallet, counted once, never a second time as wrapped-SOL tokens.
func TestChainsimWrappedSOLRepayOutflow(t *testing.T) {
	const x = 2_000_000_000
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		w := e.wallet.PublicKey()
		vault := newKey(t).PublicKey()
		e.fund(t, vault, 1_000_000_000)
		waitSlots(2)
		wsol, _ := svm.AssociatedTokenAddress(w, solana.WrappedSol)
		vaultWSOL, _ := svm.AssociatedTokenAddress(vault, solana.WrappedSol)
		setup := signTx(t, []solana.Instruction{ata.NewCreateInstruction(w, vault, solana.WrappedSol).Build()}, e.blockhash(t), e.wallet)
		if res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{setup}); err != nil || res.Outcome != chain.OutcomeLanded {
			t.Fatalf("setup: %v %v", res.Outcome, err)
		}
		tx := signTx(t, []solana.Instruction{
			solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, ata.NewCreateInstruction(w, w, solana.WrappedSol).Build().Accounts(), []byte{1}),
			transferIx(w, wsol, x),
			token.NewSyncNativeInstruction(wsol).Build(),
			token.NewTransferCheckedInstruction(x, 9, wsol, solana.WrappedSol, vaultWSOL, w, nil).Build(),
			token.NewCloseAccountInstruction(wsol, w, w, nil).Build(),
		}, e.blockhash(t), e.wallet)
		sim, err := e.client.Simulate(t.Context(), unsignedByWallet(tx.Raw), w)
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		if want := int64(x + chain.LamportsPerSignature); sim.Outflows.Lamports != want {
			t.Errorf("lamport outflow %d, want %d: the wrapped amount and the fee, once", sim.Outflows.Lamports, want)
		}
		if v, ok := sim.Outflows.Tokens[solana.WrappedSol]; ok {
			t.Errorf("wrapped SOL counted again as tokens: %d", v)
		}
	})
}
