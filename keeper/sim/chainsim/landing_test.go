package chainsim

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

func TestTransferLandsAndConfirms(t *testing.T) {
	c, clk := newChain(t, Options{Seed: 7})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, 40) // so the finalized blockhash differs from the processed one

	bh, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	if err != nil {
		t.Fatalf("GetLatestBlockhash: %v", err)
	}
	tx := transfer(t, alice, bob, 250_000, bh.Value.Blockhash)
	sig, err := cl.SendTransaction(ctx, tx)
	if err != nil {
		t.Fatalf("SendTransaction: %v", err)
	}
	if sig != tx.Signatures[0] {
		t.Fatalf("signature = %s, want %s", sig, tx.Signatures[0])
	}
	if got, want := c.State.Balance(alice.PublicKey()), uint64(1_000_000-250_000-5000); got != want {
		t.Errorf("alice balance = %d, want %d", got, want)
	}
	if got := c.State.Balance(bob); got != 250_000 {
		t.Errorf("bob balance = %d, want 250000", got)
	}
	steps := []struct {
		slots int
		want  rpc.ConfirmationStatusType
	}{
		{0, rpc.ConfirmationStatusProcessed},
		{1, rpc.ConfirmationStatusConfirmed},
		{30, rpc.ConfirmationStatusConfirmed},
		{1, rpc.ConfirmationStatusFinalized},
	}
	for _, s := range steps {
		advanceSlots(clk, s.slots)
		st, err := cl.GetSignatureStatuses(ctx, false, sig)
		if err != nil {
			t.Fatalf("GetSignatureStatuses: %v", err)
		}
		got := st.Value[0]
		if got == nil || got.ConfirmationStatus != s.want || got.Err != nil || got.Slot != 40 {
			t.Fatalf("after %d more slots: status %+v, want %s in slot 40", s.slots, got, s.want)
		}
	}
	landed, ok := c.Ledger.Transaction(sig)
	if !ok || landed.Fee != 5000 || landed.Slot != 40 || landed.Err != nil {
		t.Fatalf("Transaction = %+v, %v", landed, ok)
	}
}

func TestSignatureVerification(t *testing.T) {
	alice, mallory, bob := newKey("alice"), newKey("mallory"), newKey("bob").PublicKey()
	tests := []struct {
		name   string
		mangle func(tx *solana.Transaction)
	}{
		{"missing signature", func(tx *solana.Transaction) { tx.Signatures[0] = solana.Signature{} }},
		{"signature by another key", func(tx *solana.Transaction) {
			msg, _ := tx.Message.MarshalBinary()
			tx.Signatures[0], _ = mallory.Sign(msg)
		}},
		{"signature over other bytes", func(tx *solana.Transaction) { tx.Signatures[0][5] ^= 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			cl := rpcClient(t, c)
			mustFund(t, c, alice.PublicKey(), 1_000_000)
			tx := transfer(t, alice, bob, 1000, latest(c))
			tt.mangle(tx)
			if _, err := c.SendTransaction(raw(t, tx)); !errors.Is(err, svm.ErrSignatureFailure) {
				t.Errorf("Chain.SendTransaction error = %v, want SignatureFailure", err)
			}
			_, err := cl.SendTransaction(context.Background(), tx)
			if rerr := rpcErr(t, err); rerr.Code != -32003 {
				t.Errorf("RPC error code = %d, want -32003", rerr.Code)
			}
			sig, err := cl.SendTransactionWithOpts(context.Background(), tx, rpc.TransactionOpts{SkipPreflight: true})
			if err != nil || sig != tx.Signatures[0] {
				t.Fatalf("skip-preflight send = %s, %v; want the signature accepted", sig, err)
			}
			if _, ok := c.Ledger.SignatureStatus(sig, true); ok || c.State.Balance(bob) != 0 || c.State.Balance(alice.PublicKey()) != 1_000_000 {
				t.Errorf("a badly signed transaction landed")
			}
		})
	}
}

func TestBlockhashExpiresAfter150Blocks(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, 10)
	bh, err := cl.GetLatestBlockhash(ctx, rpc.CommitmentProcessed)
	if err != nil {
		t.Fatalf("GetLatestBlockhash: %v", err)
	}
	if bh.Value.LastValidBlockHeight != 160 {
		t.Fatalf("lastValidBlockHeight = %d, want 160", bh.Value.LastValidBlockHeight)
	}
	advanceSlots(clk, 150)
	valid, err := cl.IsBlockhashValid(ctx, bh.Value.Blockhash, rpc.CommitmentProcessed)
	if err != nil || !valid.Value {
		t.Fatalf("at height 160: IsBlockhashValid = %+v, %v; want true", valid, err)
	}
	advanceSlots(clk, 1)
	valid, err = cl.IsBlockhashValid(ctx, bh.Value.Blockhash, rpc.CommitmentProcessed)
	if err != nil || valid.Value {
		t.Fatalf("at height 161: IsBlockhashValid = %+v, %v; want false", valid, err)
	}
	tx := transfer(t, alice, bob, 1000, bh.Value.Blockhash)
	_, err = cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
	rerr := rpcErr(t, err)
	if rerr.Code != -32002 || dataErr(t, rerr) != "BlockhashNotFound" || rerr.Message != "Transaction simulation failed: Blockhash not found" {
		t.Fatalf("preflight error = %d %q %v, want -32002 BlockhashNotFound", rerr.Code, rerr.Message, rerr.Data)
	}
	if _, err := c.SendTransaction(raw(t, tx)); !errors.Is(err, svm.ErrBlockhashNotFound) {
		t.Fatalf("Chain.SendTransaction error = %v, want BlockhashNotFound", err)
	}
	if c.State.Balance(bob) != 0 {
		t.Fatalf("an expired transaction landed")
	}
}

func TestPreflightCommitmentSeesOnlyItsBlocks(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, 100)
	tx := transfer(t, alice, bob, 1000, latest(c)) // a processed blockhash
	_, err := cl.SendTransaction(ctx, tx)          // preflight at finalized (default)
	if rerr := rpcErr(t, err); dataErr(t, rerr) != "BlockhashNotFound" {
		t.Fatalf("finalized preflight of a processed blockhash: %v, want BlockhashNotFound", rerr.Data)
	}
	if _, err := cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed}); err != nil {
		t.Fatalf("processed preflight: %v", err)
	}
	if c.State.Balance(bob) != 1000 {
		t.Fatalf("bob balance = %d, want 1000", c.State.Balance(bob))
	}
}

func TestDuplicateIsAlreadyProcessed(t *testing.T) {
	c, _ := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	tx := transfer(t, alice, bob, 1000, latest(c))
	opts := rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed}
	if _, err := cl.SendTransactionWithOpts(ctx, tx, opts); err != nil {
		t.Fatalf("first send: %v", err)
	}
	_, err := cl.SendTransactionWithOpts(ctx, tx, opts)
	if rerr := rpcErr(t, err); rerr.Code != -32002 || dataErr(t, rerr) != "AlreadyProcessed" {
		t.Fatalf("second send: %d %v, want -32002 AlreadyProcessed", rerr.Code, rerr.Data)
	}
	if _, err := cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{SkipPreflight: true}); err != nil {
		t.Fatalf("skip-preflight resend: %v", err)
	}
	if _, err := c.SendTransaction(raw(t, tx)); !errors.Is(err, svm.ErrAlreadyProcessed) {
		t.Fatalf("Chain.SendTransaction error = %v, want AlreadyProcessed", err)
	}
	if c.State.Balance(bob) != 1000 || c.State.Balance(alice.PublicKey()) != 1_000_000-1000-5000 {
		t.Fatalf("duplicate executed twice: bob %d alice %d", c.State.Balance(bob), c.State.Balance(alice.PublicKey()))
	}
}

func TestFeePayerChecks(t *testing.T) {
	bob := newKey("bob").PublicKey()
	tests := []struct {
		name    string
		balance uint64
		want    *svm.TxError
	}{
		{"no account", 0, svm.ErrAccountNotFound},
		{"one lamport short of the fee", 4999, svm.ErrInsufficientFundsForFee},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			payer := newKey("payer")
			if tt.balance > 0 {
				mustFund(t, c, payer.PublicKey(), tt.balance)
			}
			tx := transfer(t, payer, bob, 0, latest(c))
			if _, err := c.SendTransaction(raw(t, tx)); !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			if c.State.Balance(payer.PublicKey()) != tt.balance {
				t.Fatalf("payer balance changed to %d", c.State.Balance(payer.PublicKey()))
			}
		})
	}
}

func TestFailedInstructionRollsBackButChargesFee(t *testing.T) {
	c, _ := newChain(t, Options{})
	cl := rpcClient(t, c)
	alice, bob, carol := newKey("alice"), newKey("bob").PublicKey(), newKey("carol").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	tx := signTx(t, []solana.Instruction{
		system.NewTransferInstruction(100_000, alice.PublicKey(), bob).Build(),
		system.NewTransferInstruction(5_000_000, alice.PublicKey(), carol).Build(),
	}, latest(c), alice)
	sig, err := cl.SendTransactionWithOpts(context.Background(), tx, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if c.State.Balance(bob) != 0 || c.State.Balance(carol) != 0 {
		t.Fatalf("failed transaction left effects: bob %d carol %d", c.State.Balance(bob), c.State.Balance(carol))
	}
	if got := c.State.Balance(alice.PublicKey()); got != 1_000_000-5000 {
		t.Fatalf("alice balance = %d, want only the fee charged", got)
	}
	st, err := cl.GetSignatureStatuses(context.Background(), false, sig)
	if err != nil || st.Value[0] == nil {
		t.Fatalf("status: %+v, %v", st, err)
	}
	want := map[string]any{"InstructionError": []any{"1", map[string]any{"Custom": "1"}}}
	if !jsonEqual(t, st.Value[0].Err, want) {
		t.Fatalf("status err = %#v, want %v", st.Value[0].Err, want)
	}
	landed, _ := c.Ledger.Transaction(sig)
	if !errors.Is(landed.Err, svm.ErrInstruction) || !errors.Is(landed.Err, svm.CustomError(1)) {
		t.Fatalf("landed err = %v, want InstructionError Custom(1)", landed.Err)
	}
}

func TestComputeBudgetFees(t *testing.T) {
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	limit := func(n uint32) solana.Instruction { return computebudget.NewSetComputeUnitLimitInstruction(n).Build() }
	price := func(p uint64) solana.Instruction { return computebudget.NewSetComputeUnitPriceInstruction(p).Build() }
	xfer := system.NewTransferInstruction(1, alice.PublicKey(), bob).Build()
	tests := []struct {
		name    string
		ixs     []solana.Instruction
		wantFee uint64
		wantErr error
	}{
		{"base fee only", []solana.Instruction{xfer}, 5000, nil},
		{"limit and price", []solana.Instruction{limit(300_000), price(10_000), xfer}, 5000 + 3000, nil},
		{"priority fee rounds up", []solana.Instruction{limit(1000), price(1), xfer}, 5001, nil},
		{"price with default limit: two builtins at 3000 units", []solana.Instruction{price(1_000_000), xfer}, 5000 + 6000, nil},
		{"limit above the maximum is capped", []solana.Instruction{limit(2_000_000), price(1_000_000), xfer}, 5000 + 1_400_000, nil},
		{"duplicate limit", []solana.Instruction{limit(1000), limit(2000), xfer}, 0, svm.ErrDuplicateInstruction},
		{"limit below the units used", []solana.Instruction{limit(200), xfer}, 5000, svm.ErrComputationalBudgetExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			mustFund(t, c, alice.PublicKey(), 10_000_000)
			sig, err := c.SendTransaction(raw(t, signTx(t, tt.ixs, latest(c), alice)))
			if tt.wantFee == 0 {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			landed, _ := c.Ledger.Transaction(sig)
			if landed.Fee != tt.wantFee {
				t.Errorf("fee = %d, want %d", landed.Fee, tt.wantFee)
			}
			if tt.wantErr != nil && !errors.Is(landed.Err, tt.wantErr) || tt.wantErr == nil && landed.Err != nil {
				t.Errorf("landed err = %v, want %v", landed.Err, tt.wantErr)
			}
		})
	}
}
