package chainsim

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// congestedChain returns a chain whose fee market has, from slot 1, a load
// bidding a fixed price on the given accounts.
func congestedChain(t *testing.T, opts Options, price uint64, accounts ...solana.PublicKey) (*Chain, *ManualClock) {
	t.Helper()
	c, clk := newChain(t, opts)
	if err := c.Market.SetLoad(1, &Load{Accounts: accounts, Prices: []uint64{price}}); err != nil {
		t.Fatalf("SetLoad: %v", err)
	}
	return c, clk
}

// landedSlot returns the slot tx landed in, or false.
func landedSlot(c *Chain, tx *solana.Transaction) (uint64, bool) {
	l, ok := c.Ledger.Transaction(tx.Signatures[0])
	return l.Slot, ok
}

// sendPair funds alice and bob, lets two slots pass, and sends through
// sendTransaction (with preflight) a transfer of alice to toA at priceA and
// one of bob to toB at priceB, each with a limit of 200,000 units. Both must
// be accepted. It returns them and the slot they were sent in.
func sendPair(t *testing.T, c *Chain, clk *ManualClock, toA solana.PublicKey, priceA uint64, toB solana.PublicKey, priceB uint64) (a, b *solana.Transaction, sent uint64) {
	t.Helper()
	alice, bob := newKey("alice"), newKey("bob")
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	mustFund(t, c, bob.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 2)
	a = pricedTransfer(t, alice, toA, priceA, 200_000, latest(c))
	b = pricedTransfer(t, bob, toB, priceB, 200_000, latest(c))
	cl := rpcClient(t, c)
	for _, tx := range []*solana.Transaction{a, b} {
		sig, err := cl.SendTransactionWithOpts(context.Background(), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
		if err != nil || sig != tx.Signatures[0] {
			t.Fatalf("sendTransaction with preflight = %v, %v; want it accepted", sig, err)
		}
	}
	return a, b, c.Ledger.Slot()
}

func TestUnderClearingPriceNeverLands(t *testing.T) {
	hot := newKey("hot account").PublicKey()
	c, clk := congestedChain(t, Options{}, 100_000, hot)
	under, over, sent := sendPair(t, c, clk, hot, 50_000, hot, 150_000)
	if _, ok := landedSlot(c, over); ok {
		t.Fatal("the transaction above the clearing price landed in the slot it was sent in; want the next")
	}
	advanceSlots(clk, 1)
	if s, ok := landedSlot(c, over); !ok || s != sent+1 {
		t.Fatalf("above the clearing price: landed %v in slot %d, want slot %d", ok, s, sent+1)
	}
	for range MaxBlockhashAge + 5 {
		if _, err := c.SendTransaction(raw(t, under)); err != nil && c.Ledger.IsBlockhashValid(under.Message.RecentBlockhash, "") {
			t.Fatalf("rebroadcast: %v", err)
		}
		advanceSlots(clk, 1)
	}
	if s, ok := landedSlot(c, under); ok {
		t.Fatalf("under the clearing price: landed in slot %d, want never", s)
	}
	if n := len(c.leader.waiting); n != 0 {
		t.Fatalf("%d transactions still wait after their blockhash expired", n)
	}
}

// TestAccountLimit: a load on one account fills that account's share of the
// block, not the block: a transaction on another account lands whatever it
// pays, one on the loaded account only above the clearing price.
func TestAccountLimit(t *testing.T) {
	hot, cold := newKey("hot account").PublicKey(), newKey("cold account").PublicKey()
	c, clk := congestedChain(t, Options{}, 100_000, hot)
	onHot, onCold, _ := sendPair(t, c, clk, hot, 0, cold, 0)
	advanceSlots(clk, 3)
	slot, ok := landedSlot(c, onCold)
	if !ok {
		t.Fatal("a transaction on an account without load did not land")
	}
	if _, ok := landedSlot(c, onHot); ok {
		t.Fatal("a transaction paying nothing on the loaded account landed")
	}
	// The load fills the account to its limit: 24M / 217,707 units = 110
	// transactions. getRecentPrioritizationFees sees their price on it.
	feeIn := func(fees []PrioritizationFee) uint64 {
		for _, f := range fees {
			if f.Slot == slot {
				return f.Fee
			}
		}
		t.Fatalf("no fee entry for slot %d in %+v", slot, fees)
		return 0
	}
	if got := feeIn(c.Ledger.RecentPrioritizationFees([]solana.PublicKey{hot})); got != 100_000 {
		t.Fatalf("fee on the loaded account in slot %d: %d, want 100000", slot, got)
	}
	if got := feeIn(c.Ledger.RecentPrioritizationFees(nil)); got != 0 {
		t.Fatalf("block minimum in slot %d: %d, want 0 (the free transaction landed there)", slot, got)
	}
}

// TestBlockLimit: a load over enough accounts fills the block, and then no
// account has room for a transaction under the clearing price.
func TestBlockLimit(t *testing.T) {
	var hot []solana.PublicKey
	for _, n := range []string{"h1", "h2", "h3", "h4", "h5"} {
		hot = append(hot, newKey(n).PublicKey())
	}
	cold := newKey("cold account").PublicKey()
	c, clk := congestedChain(t, Options{BlockLimits: BlockLimits{Block: 48_000_000, WritableAccount: 12_000_000}}, 100_000, hot...)
	// Each account takes 12M of a 48M block: five of them fill it.
	cheap, dear, _ := sendPair(t, c, clk, cold, 50_000, cold, 150_000)
	advanceSlots(clk, 3)
	if _, ok := landedSlot(c, dear); !ok {
		t.Fatal("a transaction above the clearing price did not land in a full block")
	}
	if _, ok := landedSlot(c, cheap); ok {
		t.Fatal("a transaction under the clearing price landed in a full block")
	}
}

// TestLoadOff: once the load is off, transactions land at once again, and a
// transaction that waited lands in the next block.
func TestLoadOff(t *testing.T) {
	hot := newKey("hot account").PublicKey()
	c, clk := congestedChain(t, Options{}, 100_000, hot)
	if err := c.Market.SetLoad(10, nil); err != nil {
		t.Fatalf("SetLoad: %v", err)
	}
	alice := newKey("alice")
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 5)
	waited := pricedTransfer(t, alice, hot, 0, 200_000, latest(c))
	if _, err := c.SendTransaction(raw(t, waited)); err != nil {
		t.Fatalf("send: %v", err)
	}
	advanceSlots(clk, 5)
	if s, ok := landedSlot(c, waited); !ok || s != 10 {
		t.Fatalf("waiting transaction: landed %v in slot %d, want slot 10 (the first without load)", ok, s)
	}
	now := pricedTransfer(t, alice, hot, 0, 300_000, latest(c))
	if _, err := c.SendTransaction(raw(t, now)); err != nil {
		t.Fatalf("send: %v", err)
	}
	if s, ok := landedSlot(c, now); !ok || s != 10 {
		t.Fatalf("without load: landed %v in slot %d, want at once in slot 10", ok, s)
	}
}

func TestLoadValidation(t *testing.T) {
	c, _ := newChain(t, Options{})
	k := newKey("k").PublicKey()
	for _, l := range []Load{
		{Prices: []uint64{1}},
		{Accounts: []solana.PublicKey{k}},
		{Accounts: []solana.PublicKey{k}, Prices: []uint64{2, 1}},
		{Accounts: []solana.PublicKey{k}, Prices: []uint64{1}, Demand: -1},
	} {
		if err := c.Market.SetLoad(0, &l); err == nil {
			t.Errorf("SetLoad(%+v) = nil, want an error", l)
		}
	}
	if _, err := New(Options{BlockLimits: BlockLimits{Block: 1, WritableAccount: 2}}); err == nil {
		t.Error("New with an account limit above the block limit = nil error")
	}
}

// BenchmarkPackCongestedSlot measures the production of one block while a
// load is on three accounts at the default demand (twice what an account
// takes: 663 competing transactions a slot, 330 of them packed) and one
// transaction waits.
func BenchmarkPackCongestedSlot(b *testing.B) {
	var hot []solana.PublicKey
	for _, n := range []string{"h1", "h2", "h3"} {
		hot = append(hot, newKey(n).PublicKey())
	}
	c, clk := newChain(b, Options{})
	if err := c.Market.SetLoad(1, &Load{Accounts: hot, Prices: []uint64{10_000, 100_000, 1_000_000}}); err != nil {
		b.Fatalf("SetLoad: %v", err)
	}
	alice := newKey("alice")
	mustFund(b, c, alice.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 1)
	if _, err := c.SendTransaction(raw(b, pricedTransfer(b, alice, hot[0], 1, 200_000, latest(c)))); err != nil {
		b.Fatalf("send: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		advanceSlots(clk, 1)
		_ = c.Ledger.Slot()
	}
}
