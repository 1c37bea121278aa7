package clmm_test

import (
	"fmt"

	"github.com/keeper-project/keeper/keeper/clmm"
)

// A position whose range the price is about to leave, and the range a
// rebalance would move it to.
func Example() {
	position := clmm.Range{Lower: -600, Upper: 600}
	current := int32(540)

	d := position.Distance(current)
	fmt.Printf("in range: %v, %d ticks (%.1f%% of width) from the %s edge\n", d.InRange, d.Ticks, d.Percent, d.Edge)

	next, err := clmm.CenteredRange(current, 60, position.Width())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("new range:", next)

	wide, err := clmm.CenteredRangePercent(current, 60, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("10% of price:", wide)
	// Output:
	// in range: true, 60 ticks (5.0% of width) from the upper edge
	// new range: [-60, 1140)
	// 10% of price: [0, 1020)
}

// What a dex-b position untouched since it opened is owed: its account
// still stores 2 units of token 1, but 2.5 units of growth per unit of
// liquidity accrued inside its range since its checkpoint, which sits just
// below 2^128 (the subtraction wraps).
func ExampleLayout_Owed() {
	q64 := func(n uint64) clmm.U128 { return clmm.U128{Hi: n} } // n as Q64.64
	pool := clmm.Pool{TickCurrent: 10, FeeGrowthGlobal1: q64(7)}
	lower := clmm.Tick{Index: -64, Initialized: true, FeeGrowthOutside1: q64(5)}
	upper := clmm.Tick{Index: 64, Initialized: true}
	pos := clmm.Position{
		Range:            clmm.Range{Lower: -64, Upper: 64},
		Liquidity:        clmm.U128From64(1000),
		FeeGrowthInside1: clmm.U128{}.Sub(clmm.U128{Lo: 1 << 63}), // −0.5
		FeesOwed1:        2,
	}
	owed, err := clmm.LayoutB().Owed(pool, pos, lower, upper)
	if err != nil {
		fmt.Println(err)
		return
	}
	// inside = 7 − 5 − 0 = 2; delta = 2 − (−0.5) = 2.5; 2.5 × 1000 = 2500.
	fmt.Println("stored:", pos.FeesOwed1, "owed:", owed.Fees1)
	// Output:
	// stored: 2 owed: 2502
}
