package feemarket

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// FeeWindow is how many blocks prioritization fees are kept for
// (MAX_NUM_RECENT_BLOCKS of Agave's prioritization fee cache).
const FeeWindow = 150

// PrioritizationFee is one block's entry of getRecentPrioritizationFees.
type PrioritizationFee struct {
	Slot uint64 // the block's slot
	Fee  uint64 // micro-lamports per compute unit
}

// blockFees is what Agave's prioritization fee cache keeps of one block:
// the lowest compute-unit price of its transactions, and of those that
// write-locked each account.
type blockFees struct {
	slot, height uint64
	lowest       uint64
	accounts     map[solana.PublicKey]uint64
}

// FeeBook is a prioritization fee cache, as Agave's
// (runtime/src/prioritization_fee_cache.rs): an entry per block that had a
// transaction, available once the block is confirmed (Agave finalizes an
// entry when its bank is optimistically confirmed), the last 150 of them
// kept.
type FeeBook struct {
	blocks []*blockFees // in slot order
}

// Add records a transaction of the block in slot at height that paid price
// and write-locked writable. Blocks are added in slot order.
func (b *FeeBook) Add(slot, height, price uint64, writable []solana.PublicKey) {
	f := b.block(slot, height)
	f.lowest = min(f.lowest, price)
	for _, k := range writable {
		if v, ok := f.accounts[k]; !ok || price < v {
			f.accounts[k] = price
		}
	}
}

// Note records a landed transaction that paid price. A transaction that
// asks for no compute units is left out, as Agave leaves it out.
func (b *FeeBook) Note(t *svm.Txn, slot, height, price uint64) {
	if budget, terr := svm.BudgetOf(t); terr != nil || budget.Limit == 0 {
		return
	}
	var writable []solana.PublicKey
	for i, k := range t.Keys {
		if t.Writable[i] {
			writable = append(writable, k)
		}
	}
	b.Add(slot, height, price, writable)
}

// block returns the entry of the block in slot, making it.
func (b *FeeBook) block(slot, height uint64) *blockFees {
	if n := len(b.blocks); n > 0 && b.blocks[n-1].slot == slot {
		return b.blocks[n-1]
	}
	f := &blockFees{slot: slot, height: height, lowest: ^uint64(0), accounts: map[solana.PublicKey]uint64{}}
	b.blocks = append(b.blocks, f)
	return f
}

// confirmedSpan returns the index just past the last entry confirmed when
// the newest block is at height tip (one block on top), and the index of
// the oldest of the FeeWindow entries before it.
func (b *FeeBook) confirmedSpan(tip uint64) (from, to int) {
	to = len(b.blocks)
	for to > 0 && b.blocks[to-1].height >= tip {
		to--
	}
	return max(0, to-FeeWindow), to
}

// Prune forgets the entries that fell out of the window below height tip.
func (b *FeeBook) Prune(tip uint64) {
	from, _ := b.confirmedSpan(tip)
	if from > 0 {
		b.blocks = append(b.blocks[:0:0], b.blocks[from:]...)
	}
}

// Recent answers getRecentPrioritizationFees when the newest block is at
// height tip: for each confirmed block of the window, in slot order, the
// lowest price of its transactions, raised to the lowest price paid by its
// transactions that write-locked each of accounts, whichever is highest
// (Agave PrioritizationFeeCache::get_prioritization_fees).
func (b *FeeBook) Recent(accounts []solana.PublicKey, tip uint64) []PrioritizationFee {
	from, to := b.confirmedSpan(tip)
	out := make([]PrioritizationFee, 0, to-from)
	for _, f := range b.blocks[from:to] {
		fee := f.lowest
		for _, k := range accounts {
			if v, ok := f.accounts[k]; ok {
				fee = max(fee, v)
			}
		}
		out = append(out, PrioritizationFee{Slot: f.slot, Fee: fee})
	}
	return out
}
