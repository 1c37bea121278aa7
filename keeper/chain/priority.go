package chain

import (
	"slices"

	"github.com/keeper-project/keeper/signer"
)

// FeePercentile returns the pct-th percentile (nearest rank, 1 to 100) of
// the compute-unit prices of fees, one per recent block: the price that
// would have beaten the write-lock competition of pct percent of them. No
// entries give 0.
func FeePercentile(fees []PrioritizationFee, pct int) uint64 {
	if len(fees) == 0 {
		return 0
	}
	prices := make([]uint64, len(fees))
	for i, f := range fees {
		prices[i] = f.MicroLamports
	}
	slices.Sort(prices)
	pct = min(max(pct, 1), 100)
	rank := (pct*len(prices) + 99) / 100 // ceil(pct × n / 100), 1-based
	return prices[rank-1]
}

// BudgetInstructionUnits is what each ComputeBudget instruction consumes
// (Agave's builtin cost for the ComputeBudget program): a transaction
// simulated without keeper's two consumes 2 × this more with them.
const BudgetInstructionUnits = 150

// UnitLimit sizes a compute-unit limit from the units a simulation
// consumed: consumed plus marginPercent of it, at least 1 and never above
// the runtime's 1,400,000.
func UnitLimit(consumed, marginPercent uint64) uint32 {
	limit := consumed + (consumed*marginPercent+99)/100
	return uint32(min(max(limit, 1), signer.MaxComputeUnitLimit))
}
