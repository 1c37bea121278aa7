package chainsim

import (
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// feeWindow is how many recent blocks prioritization fees are kept for.
const feeWindow = 150

// feeRecord is the compute-unit price a landed transaction paid.
type feeRecord struct {
	slot     uint64
	height   uint64
	price    uint64
	writable []solana.PublicKey
}

// PrioritizationFee is the lowest compute-unit price (micro-lamports) paid
// in one slot by transactions that write-locked the accounts asked about.
type PrioritizationFee struct {
	Slot uint64 // the block's slot
	Fee  uint64 // micro-lamports per compute unit, 0 when none
}

// feeBook is the record of the priority fees paid in recent blocks. It is
// guarded by the chain's mu.
type feeBook struct {
	fees []feeRecord
}

// note remembers what a landed transaction paid.
func (b *feeBook) note(t *svm.Txn, pos svm.BlockPos, res *execResult) {
	r := feeRecord{slot: pos.Slot, height: pos.Height, price: res.price}
	for i, k := range t.Keys {
		if t.Writable[i] {
			r.writable = append(r.writable, k)
		}
	}
	b.fees = append(b.fees, r)
}

// prune forgets fees older than the window below height tip.
func (b *feeBook) prune(tip uint64) {
	drop := 0
	for drop < len(b.fees) && b.fees[drop].height+feeWindow <= tip {
		drop++
	}
	b.fees = b.fees[drop:]
}

// recent returns the lowest fee of each of the last feeWindow blocks below
// height tip paid by transactions that write-locked any of accounts (any
// transaction when accounts is empty).
func (b *feeBook) recent(accounts []solana.PublicKey, tip uint64, idx *blockIndex) []PrioritizationFee {
	lowest := map[uint64]uint64{}
	for _, r := range b.fees {
		if len(accounts) > 0 && !slices.ContainsFunc(r.writable, func(k solana.PublicKey) bool { return slices.Contains(accounts, k) }) {
			continue
		}
		if v, ok := lowest[r.slot]; !ok || r.price < v {
			lowest[r.slot] = r.price
		}
	}
	from := tip - min(tip, feeWindow-1)
	out := make([]PrioritizationFee, 0, tip-from+1)
	for h := from; h <= tip; h++ {
		s := idx.slotOfHeight(h)
		out = append(out, PrioritizationFee{Slot: s, Fee: lowest[s]})
	}
	return out
}
