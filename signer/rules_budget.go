package signer

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// ComputeBudget instruction tags and their exact data lengths.
const (
	budgetRequestHeapFrame      = 1
	budgetSetUnitLimit          = 2
	budgetSetUnitPrice          = 3
	budgetSetLoadedAccountsSize = 4
)

var budgetDataLen = map[byte]int{
	budgetRequestHeapFrame:      5,
	budgetSetUnitLimit:          5,
	budgetSetUnitPrice:          9,
	budgetSetLoadedAccountsSize: 5,
}

// computeBudget accepts each ComputeBudget instruction at most once, with
// exactly its data and no accounts, and a unit price within the cap. The
// deprecated RequestUnits and unknown tags are refused.
func (c *check) computeBudget(i int, ix instruction) error {
	prog := solana.ComputeBudget
	if len(ix.data) == 0 {
		return refuseIx(RuleComputeBudget, i, prog, "garbled compute budget instruction (no data)")
	}
	tag := ix.data[0]
	want, ok := budgetDataLen[tag]
	switch {
	case !ok:
		return refuseIx(RuleComputeBudget, i, prog, "unknown or deprecated compute budget instruction %d", tag)
	case len(ix.data) != want || len(ix.accounts) != 0:
		return refuseIx(RuleComputeBudget, i, prog, "garbled compute budget instruction %d (%d data bytes, %d accounts)", tag, len(ix.data), len(ix.accounts))
	case c.tally.budgetSeen[tag]:
		return refuseIx(RuleComputeBudget, i, prog, "duplicate compute budget instruction %d", tag)
	}
	c.tally.budgetSeen[tag] = true
	switch tag {
	case budgetSetUnitLimit:
		c.tally.unitLimit = uint64(binary.LittleEndian.Uint32(ix.data[1:]))
	case budgetSetUnitPrice:
		c.tally.unitPrice = binary.LittleEndian.Uint64(ix.data[1:])
		if limit := c.unitPriceCap(); c.tally.unitPrice > limit {
			return refuseIx(RuleComputeUnitPrice, i, prog, "compute unit price %d micro-lamports exceeds the cap of %d", c.tally.unitPrice, limit)
		}
	}
	return nil
}

// unitPriceCap is the guard's compute unit price cap, or the action's own
// when that is lower.
func (c *check) unitPriceCap() uint64 {
	if c.bounds != nil && c.bounds.maxUnitPrice > 0 && c.bounds.maxUnitPrice < c.g.maxUnitPrice {
		return c.bounds.maxUnitPrice
	}
	return c.g.maxUnitPrice
}
