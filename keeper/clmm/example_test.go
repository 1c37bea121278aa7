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
