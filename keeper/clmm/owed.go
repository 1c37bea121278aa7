package clmm

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrOverflow reports an owed amount the program itself could not compute:
// layout A aborts the instruction when a fee quotient or a sum overflows.
var ErrOverflow = errors.New("arithmetic overflow")

// Owed is what a position is owed at the state read: the amounts stored in
// the position plus what accrued since its checkpoints, exactly as the
// program would compute them if the position were touched (a liquidity
// change or a collection) at that state. Amounts are base units.
type Owed struct {
	// Fees0 and Fees1 are the fees owed in token 0 and token 1.
	Fees0, Fees1 uint64
	// Rewards are the rewards owed per pool reward slot (0 for unused
	// slots).
	Rewards [NumRewards]uint64
}

// boundary is one growth value of a position's two boundary ticks.
type boundary struct {
	lowerIndex, upperIndex int32
	lowerInit, upperInit   bool
	lower, upper           U128 // growth outside
}

// insideA is layout A's growth inside a range (get_fee_growth_inside and
// get_reward_growths_inside): below is the lower tick's outside value when
// current >= lower, global - outside otherwise; above is the upper tick's
// outside value when current < upper, global - outside otherwise; inside is
// global - below - above, all wrapping. The comparisons use the tick index
// stored in the tick, whatever its initialized state.
func insideA(current int32, global U128, b boundary) U128 {
	below := global.Sub(b.lower)
	if current >= b.lowerIndex {
		below = b.lower
	}
	above := global.Sub(b.upper)
	if current < b.upperIndex {
		above = b.upper
	}
	return global.Sub(below).Sub(above)
}

// insideB is layout B's growth inside a range (next_fee_growths_inside and
// next_reward_growths_inside): as insideA, except that an uninitialized
// lower tick counts all growth as below (below = global) and an
// uninitialized upper tick counts none as above (above = 0).
func insideB(current int32, global U128, b boundary) U128 {
	var below, above U128
	switch {
	case !b.lowerInit:
		below = global
	case current < b.lowerIndex:
		below = global.Sub(b.lower)
	default:
		below = b.lower
	}
	switch {
	case !b.upperInit:
	case current < b.upperIndex:
		above = b.upper
	default:
		above = global.Sub(b.upper)
	}
	return global.Sub(below).Sub(above)
}

// Growths are the Q64.64 growths inside a range: what one unit of
// liquidity in the range earned over the pool's life, per fee token and
// reward slot (modulo 2^128). A position's checkpoints are these values at
// the time it was last touched.
type Growths struct {
	Fee0, Fee1 U128
	Rewards    [NumRewards]U128
}

// growthsInside applies one layout's inside rule to every growth of the
// pool; unused reward slots have a growth of 0.
func growthsInside(inside func(int32, U128, boundary) U128, pool Pool, lower, upper Tick) Growths {
	b := func(lo, up U128) boundary {
		return boundary{lowerIndex: lower.Index, upperIndex: upper.Index, lowerInit: lower.Initialized,
			upperInit: upper.Initialized, lower: lo, upper: up}
	}
	g := Growths{
		Fee0: inside(pool.TickCurrent, pool.FeeGrowthGlobal0, b(lower.FeeGrowthOutside0, upper.FeeGrowthOutside0)),
		Fee1: inside(pool.TickCurrent, pool.FeeGrowthGlobal1, b(lower.FeeGrowthOutside1, upper.FeeGrowthOutside1)),
	}
	for i, r := range pool.Rewards {
		if r.Initialized() {
			g.Rewards[i] = inside(pool.TickCurrent, r.GrowthGlobal, b(lower.RewardGrowthsOutside[i], upper.RewardGrowthsOutside[i]))
		}
	}
	return g
}

// accrual is one owed amount: the growth inside now, the position's
// checkpoint and the amount stored.
type accrual struct {
	inside, checkpoint U128
	stored             uint64
}

func accruals(g Growths, pos Position) [2 + NumRewards]accrual {
	a := [2 + NumRewards]accrual{
		{g.Fee0, pos.FeeGrowthInside0, pos.FeesOwed0},
		{g.Fee1, pos.FeeGrowthInside1, pos.FeesOwed1},
	}
	for i, r := range pos.Rewards {
		a[2+i] = accrual{g.Rewards[i], r.GrowthInside, r.Owed}
	}
	return a
}

// owedA computes layout A's amounts owed (calculate_latest_token_fees and
// PersonalPositionState::update_rewards): delta = inside - checkpoint
// (wrapping); accrued = floor(delta × liquidity / 2^64) from a 256-bit
// intermediate, 0 when it is u64::MAX or more; owed = stored + accrued,
// checked. Fees use a 128-bit quotient, which aborts the program when the
// quotient needs more than 128 bits; rewards use 256 bits and do not.
func owedA(g Growths, pos Position) (Owed, error) {
	var out [2 + NumRewards]uint64
	for i, a := range accruals(g, pos) {
		accrued, fits := mulShr64Wide(a.inside.Sub(a.checkpoint), pos.Liquidity)
		if i < 2 && !fits {
			return Owed{}, fmt.Errorf("%w: fee growth of token %d times liquidity %s exceeds 2^192", ErrOverflow, i, pos.Liquidity)
		}
		sum, carry := bits.Add64(a.stored, accrued, 0)
		if carry != 0 {
			return Owed{}, fmt.Errorf("%w: %s owed %d + %d exceeds u64", ErrOverflow, growthName(i), a.stored, accrued)
		}
		out[i] = sum
	}
	return owedFrom(out), nil
}

// owedB computes layout B's amounts owed (next_position_modify_liquidity_update
// with next_owed_delta_and_checkpoint): delta = inside - checkpoint
// (wrapping); accrued = (liquidity × delta) >> 64 when the product fits in
// 128 bits, 0 when it does not; owed = stored + accrued, wrapping in u64.
// A position without liquidity accrues nothing (the program refuses to
// update it).
func owedB(g Growths, pos Position) Owed {
	var out [2 + NumRewards]uint64
	for i, a := range accruals(g, pos) {
		accrued, ok := mulShr64Checked(pos.Liquidity, a.inside.Sub(a.checkpoint))
		if !ok || pos.Liquidity.IsZero() {
			accrued = 0
		}
		out[i] = a.stored + accrued
	}
	return owedFrom(out)
}

func owedFrom(v [2 + NumRewards]uint64) Owed {
	o := Owed{Fees0: v[0], Fees1: v[1]}
	copy(o.Rewards[:], v[2:])
	return o
}

func growthName(i int) string {
	if i < 2 {
		return fmt.Sprintf("fees of token %d", i)
	}
	return fmt.Sprintf("reward %d", i-2)
}
