package chainsim

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	ata "github.com/gagliardetto/solana-go/programs/associated-token-account"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// TestWrappedSOLRepayFromNativeSOL wraps X lamports into the wallet's
// wrapped-SOL account, syncs it, transfers X wrapped SOL to a vault and
// closes the account back: X and the fee leave the wallet, the vault holds
// X tokens backed by X lamports.
func TestWrappedSOLRepayFromNativeSOL(t *testing.T) {
	const x = 2_000_000_000
	c, clk := newChain(t, Options{})
	alice, vault := newKey("alice"), newKey("vault").PublicKey()
	mustFund(t, c, alice.PublicKey(), 10_000_000_000)
	mustFund(t, c, vault, 1_000_000_000)
	advanceSlots(clk, 1)
	wsol, _ := svm.AssociatedTokenAddress(alice.PublicKey(), solana.WrappedSol)
	vaultWSOL, _ := svm.AssociatedTokenAddress(vault, solana.WrappedSol)
	setup := signTx(t, []solana.Instruction{ata.NewCreateInstruction(alice.PublicKey(), vault, solana.WrappedSol).Build()}, latest(c), alice)
	if _, err := c.SendTransaction(raw(t, setup)); err != nil {
		t.Fatal(err)
	}
	advanceSlots(clk, 2)
	before := c.State.Balance(alice.PublicKey())
	repay := func(wrap, move uint64) *solana.Transaction {
		return signTx(t, []solana.Instruction{
			solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID,
				ata.NewCreateInstruction(alice.PublicKey(), alice.PublicKey(), solana.WrappedSol).Build().Accounts(), []byte{1}),
			system.NewTransferInstruction(wrap, alice.PublicKey(), wsol).Build(),
			token.NewSyncNativeInstruction(wsol).Build(),
			token.NewTransferCheckedInstruction(move, 9, wsol, solana.WrappedSol, vaultWSOL, alice.PublicKey(), nil).Build(),
			token.NewCloseAccountInstruction(wsol, alice.PublicKey(), alice.PublicKey(), nil).Build(),
		}, latest(c), alice)
	}
	over, _ := c.Simulate(raw(t, repay(x, x+1)), SimulateOptions{})
	if over.Err == nil {
		t.Error("moving one lamport more than was wrapped succeeded")
	}
	tx := repay(x, x)
	if _, err := c.SendTransaction(raw(t, tx)); err != nil {
		t.Fatal(err)
	}
	advanceSlots(clk, 2)
	l, ok := c.Ledger.Transaction(tx.Signatures[0])
	if !ok || l.Err != nil {
		t.Fatalf("repay: landed %v, err %v, logs %q", ok, l.Err, l.Logs)
	}
	if got := before - c.State.Balance(alice.PublicKey()); got != x+l.Fee {
		t.Errorf("wallet paid %d, want %d wrapped and the fee %d (the account's rent came back)", got, uint64(x)+l.Fee, l.Fee)
	}
	if _, ok := c.State.Account(wsol); ok {
		t.Error("the wrapped-SOL account is still open")
	}
	acct, _ := c.State.Account(vaultWSOL)
	vt, _ := svm.DecodeTokenAccount(acct.Data)
	if vt.Amount != x || acct.Lamports != svm.TokenAccountRent+x || vt.IsNative == nil {
		t.Errorf("vault's wrapped SOL: amount %d, lamports %d, native %v; want %d backed by lamports", vt.Amount, acct.Lamports, vt.IsNative != nil, x)
	}
}
