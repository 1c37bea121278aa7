package programs

import (
	"maps"
	"math"
	"math/big"
	"slices"

	"github.com/keeper-project/keeper/keeper/clmm"
)

// The CLMM programs' fee accounting, as the simulator runs it. Swaps add
// fee growth to the pool's global growth at the active liquidity; a price
// move crosses initialized ticks, flipping their outside growth (global −
// outside) and adding or removing their net liquidity; a position's stored
// fees change only when it is touched (a liquidity change, a fee update
// before a collection). Both programs do this alike (raydium-clmm
// TickState::cross and TickState::update, whirlpools tick_manager.rs
// next_tick_cross_update and next_tick_modify_liquidity_update); the
// growth inside a range and the amounts owed come from keeper/clmm, whose
// arithmetic is the programs'.

// GrowthStart is the fee growth every simulated pool starts with: close to
// 2^128, so the growth wraps during a scenario as it does on long-lived
// mainnet pools: 2^128 - 2^68, that is 0 - 2^68 wrapped.
var GrowthStart = clmm.U128{Hi: math.MaxUint64 - 15}

// CrossTo moves the pool's current tick to `to`, crossing every loaded
// initialized tick in between: upwards a tick t is crossed when
// current < t <= to, downwards when to < t <= current.
func CrossTo(pool *clmm.Pool, b *TickBook, to int32) {
	from := pool.TickCurrent
	for _, start := range slices.Sorted(maps.Keys(b.Arrays)) {
		for k := range b.Arrays[start].Ticks {
			t := &b.Arrays[start].Ticks[k]
			idx := start + int32(k)*int32(b.spacing)
			if !t.Initialized || t.LiquidityGross.IsZero() {
				continue
			}
			up, down := from < idx && idx <= to, to < idx && idx <= from
			if !up && !down {
				continue
			}
			t.FeeGrowthOutside0 = pool.FeeGrowthGlobal0.Sub(t.FeeGrowthOutside0)
			t.FeeGrowthOutside1 = pool.FeeGrowthGlobal1.Sub(t.FeeGrowthOutside1)
			for i, r := range pool.Rewards {
				if r.Initialized() {
					t.RewardGrowthsOutside[i] = r.GrowthGlobal.Sub(t.RewardGrowthsOutside[i])
				}
			}
			if up {
				pool.Liquidity = pool.Liquidity.Add(t.LiquidityNet)
			} else {
				pool.Liquidity = pool.Liquidity.Sub(t.LiquidityNet)
			}
		}
	}
	pool.TickCurrent = to
}

// Accrue adds swap fees paid at the pool's active liquidity to its global
// growth: growth += floor(fee × 2^64 / liquidity), nothing without
// liquidity.
func Accrue(pool *clmm.Pool, fee0, fee1 uint64) {
	if pool.Liquidity.IsZero() {
		return
	}
	pool.FeeGrowthGlobal0 = pool.FeeGrowthGlobal0.Add(GrowthPer(fee0, pool.Liquidity, false))
	pool.FeeGrowthGlobal1 = pool.FeeGrowthGlobal1.Add(GrowthPer(fee1, pool.Liquidity, false))
}

// AccrueRewards brings the pool's reward growth up to now, as dex-b does
// before a swap or a fee update (whirlpools whirlpool_manager.rs,
// next_whirlpool_reward_infos): each initialized reward grows by
// floor(Δt × emissions_per_second_x64 / liquidity), 0 when that overflows
// u128, nothing without liquidity; the update time moves to now.
func AccrueRewards(pool *clmm.Pool, now uint64) {
	if now <= pool.RewardLastUpdated {
		return
	}
	if !pool.Liquidity.IsZero() {
		dt := new(big.Int).SetUint64(now - pool.RewardLastUpdated)
		for i, r := range pool.Rewards {
			if !r.Initialized() {
				continue
			}
			d := new(big.Int).Mul(dt, r.EmissionsPerSecondX64.Big())
			if g, err := clmm.U128FromBig(d.Quo(d, pool.Liquidity.Big())); err == nil {
				pool.Rewards[i].GrowthGlobal = r.GrowthGlobal.Add(g)
			}
		}
	}
	pool.RewardLastUpdated = now
}

// GrowthPer returns fee × 2^64 / liquidity, rounded down or up.
func GrowthPer(fee uint64, liquidity clmm.U128, up bool) clmm.U128 {
	num := new(big.Int).Lsh(new(big.Int).SetUint64(fee), 64)
	l := liquidity.Big()
	if up {
		num.Add(num, l).Sub(num, big.NewInt(1))
	}
	g, _ := clmm.U128FromBig(num.Quo(num, l))
	return g
}

// updateTick adds (add) or removes liquidity at a position's boundary tick
// as the programs do: a tick first referenced takes outside growth = global
// when index <= current (all earlier growth counts as below it), 0
// otherwise; liquidity_net moves by +amount at a lower tick and −amount at
// an upper one; a tick left without liquidity is cleared.
func updateTick(t *clmm.Tick, index int32, pool clmm.Pool, amount uint64, add, upper bool) {
	d := clmm.U128From64(amount)
	if t.LiquidityGross.IsZero() {
		*t = clmm.Tick{Index: index}
		if add && index <= pool.TickCurrent {
			t.FeeGrowthOutside0, t.FeeGrowthOutside1 = pool.FeeGrowthGlobal0, pool.FeeGrowthGlobal1
			for i, r := range pool.Rewards {
				t.RewardGrowthsOutside[i] = r.GrowthGlobal
			}
		}
	}
	net := d
	if add {
		t.LiquidityGross = t.LiquidityGross.Add(d)
	} else {
		t.LiquidityGross = t.LiquidityGross.Sub(d)
		net = clmm.U128{}.Sub(d)
	}
	if upper {
		t.LiquidityNet = t.LiquidityNet.Sub(net)
	} else {
		t.LiquidityNet = t.LiquidityNet.Add(net)
	}
	if t.LiquidityGross.IsZero() {
		*t = clmm.Tick{Index: index}
	}
	t.Index, t.Initialized = index, !t.LiquidityGross.IsZero()
}

// touch brings a position's stored fees and rewards up to date, as a
// liquidity change (full: the checkpoints move to the growth inside its
// range) or dex-b's update_fees_and_rewards (partial: a checkpoint advances
// only by the growth converted into owed units, keeping the remainder;
// whirlpools position_manager.rs next_owed_delta_and_checkpoint) does.
// Layout B refuses to update a position without liquidity; its figures are
// then final.
func touch(layout clmm.Layout, pos *clmm.Position, pool clmm.Pool, b *TickBook, partial bool) error {
	if layout.Name() == clmm.DexB && pos.Liquidity.IsZero() {
		return nil
	}
	lower, upper := *b.Tick(pos.Range.Lower), *b.Tick(pos.Range.Upper)
	owed, err := layout.Owed(pool, *pos, lower, upper)
	if err != nil {
		return err
	}
	g := layout.GrowthInside(pool, lower, upper)
	next := func(inside, cp clmm.U128, stored, now uint64) clmm.U128 {
		if !partial {
			return inside
		}
		return PartialCheckpoint(inside, cp, pos.Liquidity, now-stored)
	}
	pos.FeeGrowthInside0 = next(g.Fee0, pos.FeeGrowthInside0, pos.FeesOwed0, owed.Fees0)
	pos.FeeGrowthInside1 = next(g.Fee1, pos.FeeGrowthInside1, pos.FeesOwed1, owed.Fees1)
	pos.FeesOwed0, pos.FeesOwed1 = owed.Fees0, owed.Fees1
	for i, r := range pos.Rewards {
		pos.Rewards[i] = clmm.PositionReward{GrowthInside: next(g.Rewards[i], r.GrowthInside, r.Owed, owed.Rewards[i]), Owed: owed.Rewards[i]}
	}
	return nil
}

// PartialCheckpoint is dex-b's checkpoint after a fee update that accrued
// `accrued` units: the growth inside when the product liquidity × delta
// overflowed (the units are lost), unchanged when nothing accrued, else
// checkpoint + ceil(accrued × 2^64 / liquidity).
func PartialCheckpoint(inside, cp, liquidity clmm.U128, accrued uint64) clmm.U128 {
	delta := inside.Sub(cp)
	if new(big.Int).Mul(liquidity.Big(), delta.Big()).BitLen() > 128 {
		return inside
	}
	if accrued == 0 {
		return cp
	}
	return cp.Add(GrowthPer(accrued, liquidity, true))
}

// AddLiquidity adds (add) or removes a position's liquidity at its range:
// the boundary ticks and, when the range holds the current tick, the
// pool's active liquidity. A position opened this way takes the growth
// inside its range as checkpoint.
func AddLiquidity(layout clmm.Layout, pos *clmm.Position, pool *clmm.Pool, b *TickBook, add bool) {
	amt := pos.Liquidity.Lo
	updateTick(b.Tick(pos.Range.Lower), pos.Range.Lower, *pool, amt, add, false)
	updateTick(b.Tick(pos.Range.Upper), pos.Range.Upper, *pool, amt, add, true)
	if pos.Range.Contains(pool.TickCurrent) {
		if add {
			pool.Liquidity = pool.Liquidity.Add(pos.Liquidity)
		} else {
			pool.Liquidity = pool.Liquidity.Sub(pos.Liquidity)
		}
	}
	if add {
		g := layout.GrowthInside(*pool, *b.Tick(pos.Range.Lower), *b.Tick(pos.Range.Upper))
		pos.FeeGrowthInside0, pos.FeeGrowthInside1 = g.Fee0, g.Fee1
		for i := range pos.Rewards {
			pos.Rewards[i].GrowthInside = g.Rewards[i]
		}
	}
}
