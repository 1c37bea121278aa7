package chainsim

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/feemarket"
)

// pricedTransfer returns a transfer from payer to to at a compute-unit
// price, with a compute-unit limit of limit (none when 0).
func pricedTransfer(t testing.TB, payer solana.PrivateKey, to solana.PublicKey, price uint64, limit uint32, bh solana.Hash) *solana.Transaction {
	t.Helper()
	ixs := []solana.Instruction{computebudget.NewSetComputeUnitPriceInstruction(price).Build()}
	if limit > 0 {
		ixs = append(ixs, computebudget.NewSetComputeUnitLimitInstruction(limit).Build())
	}
	ixs = append(ixs, system.NewTransferInstruction(1, payer.PublicKey(), to).Build())
	return signTx(t, ixs, bh, payer)
}

// TestRecentPrioritizationFees replays the table of Agave's
// test_get_prioritization_fees (runtime/src/prioritization_fee_cache.rs):
// a block's entry is its lowest price, raised to the lowest price paid by
// the transactions that write-locked each account asked about; blocks
// without a transaction have no entry; a block's entry appears once the
// block is confirmed.
func TestRecentPrioritizationFees(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	a, b, x, y := newKey("fee a"), newKey("fee b"), newKey("fee x"), newKey("fee y")
	cKey, other := newKey("fee c").PublicKey(), newKey("fee other").PublicKey()
	for _, k := range []solana.PrivateKey{a, b, x, y} {
		mustFund(t, c, k.PublicKey(), 10_000_000)
	}
	send := func(payer solana.PrivateKey, to solana.PublicKey, price uint64) {
		t.Helper()
		if _, err := c.SendTransaction(raw(t, pricedTransfer(t, payer, to, price, 0, latest(c)))); err != nil {
			t.Fatalf("send at price %d: %v", price, err)
		}
	}
	advanceSlots(clk, 1) // slot 1: [2: a b], [1: x other]
	send(a, b.PublicKey(), 2)
	send(x, other, 1)
	advanceSlots(clk, 1) // slot 2: [4: b c], [3: y other]
	send(b, cKey, 4)
	send(y, other, 3)
	ask := func(keys ...solana.PublicKey) []uint64 {
		t.Helper()
		fees, err := cl.GetRecentPrioritizationFees(context.Background(), keys)
		if err != nil {
			t.Fatalf("getRecentPrioritizationFees: %v", err)
		}
		var out []uint64
		for i, f := range fees {
			if f.Slot != uint64(i+1) {
				t.Fatalf("entry %d is slot %d, want %d (only blocks with transactions, in order)", i, f.Slot, i+1)
			}
			out = append(out, f.PrioritizationFee)
		}
		return out
	}
	if got := ask(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("at slot 2 (slot 2 not confirmed): fees %v, want [1]", got)
	}
	advanceSlots(clk, 2)
	tests := []struct {
		name string
		keys []solana.PublicKey
		want []uint64
	}{
		{"no account", nil, []uint64{1, 3}},
		{"a", []solana.PublicKey{a.PublicKey()}, []uint64{2, 3}},
		{"b", []solana.PublicKey{b.PublicKey()}, []uint64{2, 4}},
		{"c", []solana.PublicKey{cKey}, []uint64{1, 4}},
		{"a and b", []solana.PublicKey{a.PublicKey(), b.PublicKey()}, []uint64{2, 4}},
		{"a, b and c", []solana.PublicKey{a.PublicKey(), b.PublicKey(), cKey}, []uint64{2, 4}},
		{"unknown account", []solana.PublicKey{newKey("nobody").PublicKey()}, []uint64{1, 3}},
	}
	for _, tt := range tests {
		got := ask(tt.keys...)
		if len(got) != len(tt.want) || got[0] != tt.want[0] || got[1] != tt.want[1] {
			t.Errorf("%s: fees %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRecentPrioritizationFeesWindow: the cache keeps the last 150 blocks
// that had a transaction.
func TestRecentPrioritizationFeesWindow(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	for i := range 160 {
		advanceSlots(clk, 2)
		if _, err := c.SendTransaction(raw(t, pricedTransfer(t, alice, bob, uint64(i+1), 0, latest(c)))); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	advanceSlots(clk, 1)
	fees := c.Ledger.RecentPrioritizationFees(nil)
	if len(fees) != feemarket.FeeWindow || fees[0].Fee != 11 || fees[0].Slot != 22 || fees[149].Fee != 160 {
		t.Fatalf("fees: %d entries, first %+v, last %+v; want 150 from slot 22 (price 11) to price 160", len(fees), fees[0], fees[len(fees)-1])
	}
}
