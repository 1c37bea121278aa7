package chainsim

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	lookup "github.com/gagliardetto/solana-go/programs/address-lookup-table"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// v0Transfer returns a v0 transfer to bob and carol loaded through table.
func v0Transfer(t *testing.T, c *Chain, payer solana.PrivateKey, table solana.PublicKey, to []solana.PublicKey) *solana.Transaction {
	t.Helper()
	ixs := make([]solana.Instruction, len(to))
	for i, k := range to {
		ixs[i] = system.NewTransferInstruction(100, payer.PublicKey(), k).Build()
	}
	tx, err := solana.NewTransaction(ixs, latest(c), solana.TransactionPayer(payer.PublicKey()),
		solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{table: to}))
	if err != nil {
		t.Fatalf("NewTransaction: %v", err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k == payer.PublicKey() {
			return &payer
		}
		return nil
	}); err != nil {
		t.Fatalf("Sign: %v", err)
	}
	if !tx.Message.IsVersioned() {
		t.Fatalf("transaction is not v0")
	}
	return tx
}

func TestV0WithLookupTable(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, table := newKey("alice"), newKey("table").PublicKey()
	bob, carol := newKey("bob").PublicKey(), newKey("carol").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	if err := c.Setup.CreateLookupTable(table, alice.PublicKey(), []solana.PublicKey{bob, carol}); err != nil {
		t.Fatalf("CreateLookupTable: %v", err)
	}
	acct, _ := c.State.Account(table)
	state, err := lookup.DecodeAddressLookupTableState(acct.Data)
	if err != nil || len(state.Addresses) != 2 || state.Addresses[1] != carol || !state.IsActive() || *state.Authority != alice.PublicKey() {
		t.Fatalf("lookup table as solana-go decodes it = %+v, %v", state, err)
	}
	tx := v0Transfer(t, c, alice, table, []solana.PublicKey{bob, carol})
	sig, err := cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if c.State.Balance(bob) != 100 || c.State.Balance(carol) != 100 {
		t.Fatalf("balances bob %d carol %d, want 100 each", c.State.Balance(bob), c.State.Balance(carol))
	}
	advanceSlots(clk, 32)
	if _, err := cl.GetTransaction(ctx, sig, nil); rpcErr(t, err).Code != -32015 {
		t.Fatalf("v0 without maxSupportedTransactionVersion: %v", err)
	}
	v := uint64(0)
	got, err := cl.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, MaxSupportedTransactionVersion: &v})
	if err != nil || got.Version != 0 || len(got.Meta.LoadedAddresses.Writable) != 2 || got.Meta.LoadedAddresses.Writable[1] != carol || len(got.Meta.PostBalances) != 4 || got.Meta.PostBalances[3] != 100 {
		t.Fatalf("GetTransaction = %+v, %v", got, err)
	}
}

func TestLookupTableLoadErrors(t *testing.T) {
	bob, carol := newKey("bob").PublicKey(), newKey("carol").PublicKey()
	tests := []struct {
		name  string
		setup func(c *Chain, table solana.PublicKey)
		want  *svm.TxError
	}{
		{"missing table", func(*Chain, solana.PublicKey) {}, svm.ErrAddressLookupTableNotFound},
		{"table owned by another program", func(c *Chain, table solana.PublicKey) {
			c.State.SetAccount(table, svm.Account{Lamports: 1, Owner: solana.SystemProgramID, Data: svm.EncodeLookupTable(bob, []solana.PublicKey{bob, carol})})
		}, svm.ErrInvalidAddressLookupTableOwner},
		{"index beyond the table", func(c *Chain, table solana.PublicKey) {
			_ = c.Setup.CreateLookupTable(table, bob, []solana.PublicKey{bob})
		}, svm.ErrInvalidAddressLookupTableIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			alice, table := newKey("alice"), newKey("table").PublicKey()
			mustFund(t, c, alice.PublicKey(), 1_000_000)
			tt.setup(c, table)
			tx := v0Transfer(t, c, alice, table, []solana.PublicKey{bob, carol})
			if _, err := c.SendTransaction(raw(t, tx)); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDurableNonce(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, nonceKey, bob := newKey("alice"), newKey("nonce").PublicKey(), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	nonce := c.Setup.CreateNonceAccount(nonceKey, alice.PublicKey(), 1_500_000)
	build := func(lamports uint64, hash solana.Hash) []byte {
		return raw(t, signTx(t, []solana.Instruction{
			system.NewAdvanceNonceAccountInstruction(nonceKey, svm.RecentBlockhashesID, alice.PublicKey()).Build(),
			system.NewTransferInstruction(lamports, alice.PublicKey(), bob).Build(),
		}, hash, alice))
	}
	first, second := build(100, nonce), build(200, nonce)
	advanceSlots(clk, 500) // far beyond any blockhash's lifetime
	if _, err := c.SendTransaction(first); err != nil {
		t.Fatalf("nonce transaction: %v", err)
	}
	if c.State.Balance(bob) != 100 {
		t.Fatalf("bob = %d, want 100", c.State.Balance(bob))
	}
	acct, _ := c.State.Account(nonceKey)
	if n, ok := svm.DecodeNonce(acct); !ok || n.Nonce == nonce || n.Nonce != svm.DurableNonceFrom(c.Ledger.idx.blockhashOf(500)) {
		t.Fatalf("nonce not advanced: %+v", n)
	}
	if _, err := c.SendTransaction(second); !errors.Is(err, svm.ErrBlockhashNotFound) {
		t.Fatalf("second use of the nonce: err = %v, want BlockhashNotFound", err)
	}
}

func TestStallFreezesHeightAndQueuesTransactions(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, 10)
	c.Ledger.Stall(20) // slots 11..30 produce no block
	advanceSlots(clk, 5)
	if h, _ := cl.GetBlockHeight(ctx, rpc.CommitmentProcessed); h != 10 {
		t.Fatalf("height during stall = %d, want 10", h)
	}
	if s := c.Ledger.Slot(); s != 15 {
		t.Fatalf("slot during stall = %d, want 15", s)
	}
	sig, err := cl.SendTransactionWithOpts(ctx, transfer(t, alice, bob, 500, latest(c)), rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
	if err != nil {
		t.Fatalf("send during stall: %v", err)
	}
	if st, _ := cl.GetSignatureStatuses(ctx, false, sig); st.Value[0] != nil || c.State.Balance(bob) != 0 {
		t.Fatalf("a transaction landed during a stall")
	}
	advanceSlots(clk, 16) // slot 31: the first block after the stall
	st, err := cl.GetSignatureStatuses(ctx, false, sig)
	if err != nil || st.Value[0] == nil || st.Value[0].Slot != 31 || c.State.Balance(bob) != 500 {
		t.Fatalf("after the stall: status %+v, %v, bob %d; want landed in slot 31", st.Value, err, c.State.Balance(bob))
	}
	if h, _ := cl.GetBlockHeight(ctx, rpc.CommitmentProcessed); h != 11 {
		t.Fatalf("height after stall = %d, want 11", h)
	}
	if _, last := c.Ledger.LatestBlockhash(rpc.CommitmentProcessed); last != 161 {
		t.Fatalf("lastValidBlockHeight after stall = %d, want 161", last)
	}
}

func TestOnLandedHook(t *testing.T) {
	c, _ := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob")
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	mustFund(t, c, bob.PublicKey(), 1_000_000)
	var seen []Landed
	c.OnLanded(func(l Landed) {
		seen = append(seen, l)
		if len(seen) == 1 { // a hook may send: here bob pays alice back
			if _, err := c.SendTransaction(raw(t, transfer(t, bob, alice.PublicKey(), 7, latest(c)))); err != nil {
				t.Errorf("send from hook: %v", err)
			}
		}
	})
	sig, err := c.SendTransaction(raw(t, transfer(t, alice, bob.PublicKey(), 5, latest(c))))
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if len(seen) != 2 || seen[0].Signature != sig || seen[0].Fee != 5000 || seen[1].Transaction.Message.AccountKeys[0] != bob.PublicKey() {
		t.Fatalf("hook saw %+v", seen)
	}
	if !seen[0].Sent.Equal(seen[0].At) || seen[0].Sent.IsZero() {
		t.Errorf("an RPC send ran at %v, sent at %v; want the same moment", seen[0].At, seen[0].Sent)
	}
}
