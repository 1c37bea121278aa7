package signer

import "encoding/binary"

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
func (x ixCheck) computeBudget() error {
	if len(x.ix.data) == 0 {
		return x.refuse(RuleComputeBudget, "garbled compute budget instruction (no data)")
	}
	tag := x.ix.data[0]
	want, ok := budgetDataLen[tag]
	switch {
	case !ok:
		return x.refuse(RuleComputeBudget, "unknown or deprecated compute budget instruction %d", tag)
	case len(x.ix.data) != want || len(x.ix.accounts) != 0:
		return x.refuse(RuleComputeBudget, "garbled compute budget instruction %d (%d data bytes, %d accounts)", tag, len(x.ix.data), len(x.ix.accounts))
	case x.c.tally.budgetSeen[tag]:
		return x.refuse(RuleComputeBudget, "duplicate compute budget instruction %d", tag)
	}
	x.c.tally.budgetSeen[tag] = true
	switch tag {
	case budgetSetUnitLimit:
		x.c.tally.unitLimit = uint64(binary.LittleEndian.Uint32(x.ix.data[1:]))
	case budgetSetUnitPrice:
		x.c.tally.unitPrice = binary.LittleEndian.Uint64(x.ix.data[1:])
		if limit := x.c.unitPriceCap(); x.c.tally.unitPrice > limit {
			return x.refuse(RuleComputeUnitPrice, "compute unit price %d micro-lamports exceeds the cap of %d", x.c.tally.unitPrice, limit)
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
