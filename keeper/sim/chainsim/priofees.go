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

// noteFee remembers what a landed transaction paid. The caller holds c.mu.
func (c *Chain) noteFee(t *svm.Txn, pos svm.BlockPos, res *execResult) {
	r := feeRecord{slot: pos.Slot, height: pos.Height, price: res.price}
	for i, k := range t.Keys {
		if t.Writable[i] {
			r.writable = append(r.writable, k)
		}
	}
	c.fees = append(c.fees, r)
}

// pruneFees forgets fees older than the window. The caller holds c.mu.
func (c *Chain) pruneFees() {
	drop := 0
	for drop < len(c.fees) && c.fees[drop].height+feeWindow <= c.tip.Height {
		drop++
	}
	c.fees = c.fees[drop:]
}

// RecentPrioritizationFees returns one entry per block of the last 150, in
// slot order: the lowest price paid in that block by a transaction that
// write-locked any of accounts (any transaction when accounts is empty), or
// 0 when there was none.
func (c *Chain) RecentPrioritizationFees(accounts []solana.PublicKey) []PrioritizationFee {
	c.lock()
	defer c.unlock()
	lowest := map[uint64]uint64{}
	for _, r := range c.fees {
		if len(accounts) > 0 && !slices.ContainsFunc(r.writable, func(k solana.PublicKey) bool { return slices.Contains(accounts, k) }) {
			continue
		}
		if v, ok := lowest[r.slot]; !ok || r.price < v {
			lowest[r.slot] = r.price
		}
	}
	top := c.tip.Height
	from := top - min(top, feeWindow-1)
	out := make([]PrioritizationFee, 0, top-from+1)
	for h := from; h <= top; h++ {
		s := c.slotOfHeight(h)
		out = append(out, PrioritizationFee{Slot: s, Fee: lowest[s]})
	}
	return out
}
