package clmm

import (
	"errors"
	"testing"
)

// q64 returns n as a Q64.64 value (n << 64).
func q64(n uint64) U128 { return U128{Hi: n} }

// neg returns -v modulo 2^128.
func neg(v U128) U128 { return U128{}.Sub(v) }

func initTick(index int32, out0, out1 uint64) Tick {
	return Tick{Index: index, Initialized: true, LiquidityGross: U128From64(1),
		FeeGrowthOutside0: U128From64(out0), FeeGrowthOutside1: U128From64(out1)}
}

// TestGrowthInsideProgramVectors uses the vectors of layout B's own unit
// test of next_fee_growths_inside (orca-so/whirlpools,
// programs/whirlpool/src/manager/tick_manager.rs, test_next_fee_growths_inside):
// current tick below, inside and above the range. Layout A's
// get_fee_growth_inside (raydium-io/raydium-clmm,
// programs/amm/src/states/tick_array.rs) is the same formula for
// initialized ticks, so both must agree.
func TestGrowthInsideProgramVectors(t *testing.T) {
	tests := []struct {
		name           string
		current        int32
		lower, upper   Tick
		global0, glob1 uint64
		want0, want1   uint64
	}{
		{"current below the range", -200, initTick(-100, 2000, 1000), initTick(100, 1000, 1000), 3000, 3000, 1000, 0},
		{"current inside the range", -20, initTick(-20, 2000, 1000), initTick(100, 1500, 1000), 4000, 3000, 500, 1000},
		{"current above the range", 200, initTick(-100, 2000, 1000), initTick(100, 2500, 2000), 3000, 3000, 500, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, inside := range []func(int32, U128, boundary) U128{insideA, insideB} {
				b0 := boundary{lowerIndex: tt.lower.Index, upperIndex: tt.upper.Index, lowerInit: true, upperInit: true,
					lower: tt.lower.FeeGrowthOutside0, upper: tt.upper.FeeGrowthOutside0}
				b1 := b0
				b1.lower, b1.upper = tt.lower.FeeGrowthOutside1, tt.upper.FeeGrowthOutside1
				got0 := inside(tt.current, U128From64(tt.global0), b0)
				got1 := inside(tt.current, U128From64(tt.glob1), b1)
				if got0 != U128From64(tt.want0) || got1 != U128From64(tt.want1) {
					t.Errorf("inside = %s, %s; want %d, %d", got0, got1, tt.want0, tt.want1)
				}
			}
		})
	}
}

// TestGrowthInsideUninitializedB checks layout B's convention for
// uninitialized boundary ticks (tick_manager.rs, next_fee_growths_inside:
// all growth counts as below an uninitialized lower tick, none as above an
// uninitialized upper tick) and that layout A has no such rule.
func TestGrowthInsideUninitializedB(t *testing.T) {
	b := boundary{lowerIndex: -100, upperIndex: 100, lower: U128From64(300), upper: U128From64(100), upperInit: true}
	if got, want := insideB(0, U128From64(1000), b), neg(U128From64(100)); got != want {
		t.Errorf("B, lower uninitialized: inside = %s, want %s (global - global - 100)", got, want)
	}
	if got := insideA(0, U128From64(1000), b); got != U128From64(600) {
		t.Errorf("A ignores the flag: inside = %s, want 600 (1000 - 300 - 100)", got)
	}
	b.lowerInit, b.upperInit = true, false
	if got := insideB(0, U128From64(1000), b); got != U128From64(700) {
		t.Errorf("B, upper uninitialized: inside = %s, want 700 (1000 - 300 - 0)", got)
	}
}

// rangePool returns a pool and ticks where the growth inside [-100, 100) is
// exactly inside0 and inside1 (current tick in range, zero outside values).
func rangePool(inside0, inside1 U128) (Pool, Tick, Tick) {
	pool := Pool{TickSpacing: 1, TickCurrent: 0, FeeGrowthGlobal0: inside0, FeeGrowthGlobal1: inside1}
	return pool, Tick{Index: -100, Initialized: true}, Tick{Index: 100, Initialized: true}
}

// TestOwedProgramVectors uses the vectors of layout B's
// next_position_modify_liquidity_update tests (orca-so/whirlpools,
// programs/whirlpool/src/manager/position_manager.rs:
// ok_negative_liquidity_delta_fee_growth, ok_reward_growth,
// fee_delta_overflow_defaults_zero); layout A's calculate_latest_token_fees
// (raydium-io/raydium-clmm, programs/amm/src/instructions/increase_liquidity.rs)
// and PersonalPositionState::update_rewards (programs/amm/src/states/personal_position.rs)
// give the same amounts where nothing overflows.
func TestOwedProgramVectors(t *testing.T) {
	t.Run("fees", func(t *testing.T) {
		pool, lo, up := rangePool(q64(120), q64(250))
		pos := Position{Liquidity: U128From64(10000), FeeGrowthInside0: q64(100), FeeGrowthInside1: q64(100)}
		for _, l := range []Layout{LayoutA(), LayoutB()} {
			got, err := l.Owed(pool, pos, lo, up)
			if err != nil || got.Fees0 != 200_000 || got.Fees1 != 1_500_000 {
				t.Errorf("%s: owed %+v, %v; want 200000 and 1500000", l.Name(), got, err)
			}
		}
	})
	t.Run("rewards", func(t *testing.T) {
		pool, lo, up := rangePool(U128{}, U128{})
		for i, g := range []uint64{200, 500, 1000} {
			pool.Rewards[i] = PoolReward{Mint: testKey("reward"), GrowthGlobal: q64(g)}
		}
		pos := Position{Liquidity: U128From64(2500), Rewards: [NumRewards]PositionReward{
			{GrowthInside: q64(100), Owed: 50}, {GrowthInside: q64(250), Owed: 100}, {GrowthInside: q64(10)}}}
		want := [NumRewards]uint64{250_050, 625_100, 2_475_000}
		for _, l := range []Layout{LayoutA(), LayoutB()} {
			got, err := l.Owed(pool, pos, lo, up)
			if err != nil || got.Rewards != want {
				t.Errorf("%s: rewards %v, %v; want %v", l.Name(), got.Rewards, err, want)
			}
		}
		pool.Rewards[1].Mint = [32]byte{} // an unused slot: inside growth 0, delta -checkpoint
		got, _ := LayoutB().Owed(pool, pos, lo, up)
		if got.Rewards[1] != 100 {
			t.Errorf("B, unused slot: owed %d, want 100 (the product overflows, so nothing accrues)", got.Rewards[1])
		}
	})
	t.Run("overflow", func(t *testing.T) {
		max := U128{Hi: ^uint64(0), Lo: ^uint64(0)}
		pool, lo, up := rangePool(max, max)
		pos := Position{Liquidity: U128From64(1<<63 - 1), FeesOwed0: 10, FeesOwed1: 20}
		// B: the product overflows u128, nothing accrues.
		if got, _ := LayoutB().Owed(pool, pos, lo, up); got.Fees0 != 10 || got.Fees1 != 20 {
			t.Errorf("B: owed %+v, want 10 and 20", got)
		}
		// A: the quotient (about 2^127) is u64::MAX or more, so it is 0.
		if got, err := LayoutA().Owed(pool, pos, lo, up); err != nil || got.Fees0 != 10 || got.Fees1 != 20 {
			t.Errorf("A: owed %+v, %v; want 10 and 20", got, err)
		}
		// A: a quotient of more than 128 bits aborts the program.
		pos.Liquidity = U128{Hi: 1 << 62}
		if _, err := LayoutA().Owed(pool, pos, lo, up); !errors.Is(err, ErrOverflow) {
			t.Errorf("A: error %v, want ErrOverflow", err)
		}
		// A: the checked sum of stored and accrued overflows.
		pool, lo, up = rangePool(q64(2), q64(0))
		pos = Position{Liquidity: U128From64(1), FeesOwed0: ^uint64(0) - 1}
		if _, err := LayoutA().Owed(pool, pos, lo, up); !errors.Is(err, ErrOverflow) {
			t.Errorf("A: error %v, want ErrOverflow", err)
		}
		// B: the same sum wraps.
		if got, _ := LayoutB().Owed(pool, pos, lo, up); got.Fees0 != 0 {
			t.Errorf("B: fees %d, want 0 (u64::MAX - 1 + 2 wraps)", got.Fees0)
		}
	})
	t.Run("zero liquidity", func(t *testing.T) {
		pool, lo, up := rangePool(q64(500), q64(500))
		pos := Position{FeesOwed0: 7, FeesOwed1: 8}
		for _, l := range []Layout{LayoutA(), LayoutB()} {
			if got, err := l.Owed(pool, pos, lo, up); err != nil || got.Fees0 != 7 || got.Fees1 != 8 {
				t.Errorf("%s: owed %+v, %v; want the stored 7 and 8", l.Name(), got, err)
			}
		}
	})
}

// TestOwedCheckpointNear2128 is a position whose checkpoint wrapped: the
// growth inside was -3 (Q64.64) when it was last touched and is 2 now, so
// 5 units of growth accrued.
func TestOwedCheckpointNear2128(t *testing.T) {
	pool, lo, up := rangePool(q64(2), q64(2).Add(U128From64(1<<63)))
	pos := Position{Liquidity: U128From64(1000), FeeGrowthInside0: neg(q64(3)), FeeGrowthInside1: neg(q64(3)), FeesOwed0: 1}
	for _, l := range []Layout{LayoutA(), LayoutB()} {
		got, err := l.Owed(pool, pos, lo, up)
		if err != nil || got.Fees0 != 5001 || got.Fees1 != 5500 {
			t.Errorf("%s: owed %+v, %v; want 5001 and 5500", l.Name(), got, err)
		}
	}
}

// crossModel is a pool as both programs run it: growth accrues globally,
// and crossing an initialized tick flips its outside value
// (global - outside: tick_manager.rs next_tick_cross_update, tick_array.rs
// TickState::cross).
type crossModel struct {
	pool  Pool
	ticks map[int32]*Tick
}

func (m *crossModel) accrue(g U128) { m.pool.FeeGrowthGlobal0 = m.pool.FeeGrowthGlobal0.Add(g) }

// moveTo moves the current tick, crossing the initialized ticks between.
func (m *crossModel) moveTo(tick int32) {
	for idx, t := range m.ticks {
		up := m.pool.TickCurrent < idx && tick >= idx
		down := m.pool.TickCurrent >= idx && tick < idx
		if up || down {
			t.FeeGrowthOutside0 = m.pool.FeeGrowthGlobal0.Sub(t.FeeGrowthOutside0)
		}
	}
	m.pool.TickCurrent = tick
}

// initialize sets up a tick as the programs do when a position first
// references it: outside = global when tick <= current, 0 otherwise.
func (m *crossModel) initialize(idx int32) {
	t := &Tick{Index: idx, Initialized: true, LiquidityGross: U128From64(1)}
	if idx <= m.pool.TickCurrent {
		t.FeeGrowthOutside0 = m.pool.FeeGrowthGlobal0
	}
	m.ticks[idx] = t
}

func (m *crossModel) inside(lo, up int32) U128 {
	b := boundary{lowerIndex: lo, upperIndex: up, lowerInit: true, upperInit: true,
		lower: m.ticks[lo].FeeGrowthOutside0, upper: m.ticks[up].FeeGrowthOutside0}
	return insideB(m.pool.TickCurrent, m.pool.FeeGrowthGlobal0, b)
}

// TestOwedRangeCrossedSeveralTimes moves the price in and out of a range
// several times, on both sides, from a global growth close to 2^128 and
// with an upper tick that existed before the position (so the checkpoint
// itself is close to 2^128). Only the growth accrued while the price was
// in range is owed.
func TestOwedRangeCrossedSeveralTimes(t *testing.T) {
	const liq = 1000
	m := &crossModel{pool: Pool{TickSpacing: 10, TickCurrent: 50, FeeGrowthGlobal0: neg(q64(10))}, ticks: map[int32]*Tick{}}
	m.initialize(100) // another position's tick, above the price
	m.moveTo(150)
	m.accrue(q64(4))
	m.moveTo(50)
	m.accrue(q64(1))
	// Open the position [0, 100) with the price inside it.
	m.initialize(0)
	pos := Position{Range: Range{Lower: 0, Upper: 100}, Liquidity: U128From64(liq), FeeGrowthInside0: m.inside(0, 100)}
	if pos.FeeGrowthInside0.Hi < 1<<63 {
		t.Fatalf("checkpoint %s is not close to 2^128; the vector does not test wrapping", pos.FeeGrowthInside0)
	}
	steps := []struct {
		to     int32
		growth uint64
	}{{50, 3}, {120, 5}, {60, 2}, {-40, 7}, {10, 1}, {100, 9}, {99, 4}, {-1, 6}, {0, 2}}
	var earned uint64
	for _, s := range steps {
		m.moveTo(s.to)
		m.accrue(q64(s.growth))
		if pos.Range.Contains(s.to) {
			earned += s.growth * liq
		}
	}
	for _, l := range []Layout{LayoutA(), LayoutB()} {
		got, err := l.Owed(m.pool, pos, *m.ticks[0], *m.ticks[100])
		if err != nil || got.Fees0 != earned {
			t.Errorf("%s: fees owed %d, %v; want %d", l.Name(), got.Fees0, err, earned)
		}
	}
	if earned != (3+2+1+4+2)*liq {
		t.Fatalf("earned %d: the steps changed", earned)
	}
}
