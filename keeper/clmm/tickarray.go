package clmm

import (
	"fmt"
	"strconv"

	"github.com/gagliardetto/solana-go"
)

// NumRewards is the number of reward slots of a pool and a position in both
// layouts.
const NumRewards = 3

// Account kinds of tick arrays, for [AccountError].
const (
	// AccountTickArray names a tick-array account.
	AccountTickArray = "tick array"
)

// tickArraySeed is the first PDA seed of tick-array accounts in both layouts.
var tickArraySeed = []byte("tick_array")

// Tick is the part of one tick that fee and reward accounting uses.
type Tick struct {
	// Index is the tick index. Layout A stores it in the tick and compares
	// the current tick against the stored value; layout B derives it from
	// the array's start and the tick's slot.
	Index int32
	// Initialized reports whether positions reference the tick: layout B's
	// initialized flag (or dynamic tag), layout A's liquidity_gross > 0.
	Initialized bool
	// LiquidityNet is the signed i128 liquidity added when the price crosses
	// the tick upwards, in two's complement.
	LiquidityNet U128
	// LiquidityGross is the total liquidity of the positions referencing it.
	LiquidityGross U128
	// FeeGrowthOutside0 and FeeGrowthOutside1 are the Q64.64 fee growths on
	// the other side of the tick from the current tick.
	FeeGrowthOutside0, FeeGrowthOutside1 U128
	// RewardGrowthsOutside are the same for each reward slot.
	RewardGrowthsOutside [NumRewards]U128
}

// TickArray is one tick-array account: the ticks of a pool from Start, one
// every tick spacing.
type TickArray struct {
	// Pool is the pool the array belongs to.
	Pool solana.PublicKey
	// Start is the index of the first tick.
	Start int32
	// Dynamic selects layout B's dynamic (resizable) account format over
	// the fixed one; layout A ignores it.
	Dynamic bool
	// Ticks holds one tick per slot (60 in layout A, 88 in layout B).
	Ticks []Tick
}

// Tick returns the tick at index from the array, checking that the index is
// aligned to spacing and lies in the array.
func (a TickArray) Tick(index int32, spacing uint16) (Tick, error) {
	s := int32(spacing)
	if s <= 0 || index%s != 0 {
		return Tick{}, fmt.Errorf("tick %d is not a multiple of tick spacing %d", index, spacing)
	}
	slot := (int64(index) - int64(a.Start)) / int64(s)
	if index < a.Start || slot >= int64(len(a.Ticks)) {
		return Tick{}, fmt.Errorf("tick %d is outside the tick array starting at %d (%d ticks, spacing %d)",
			index, a.Start, len(a.Ticks), spacing)
	}
	return a.Ticks[slot], nil
}

// arrayStart returns the start index of the array of n ticks holding tick:
// floor(tick / (n × spacing)) × n × spacing, rounding toward −∞. Layout A
// computes it that way (get_array_start_index); layout B as
// tick.div_euclid(spacing).div_euclid(n) × spacing × n, which is the same
// value.
func arrayStart(tick int32, spacing uint16, n int32) int32 {
	width := int64(n) * int64(spacing)
	t := int64(tick)
	q := t / width
	if t%width != 0 && t < 0 {
		q--
	}
	return int32(q * width)
}

// TickArrayAddress returns the tick-array account of pool starting at start:
// the PDA of seeds ["tick_array", pool, start] under the program, start
// being a big-endian i32 in layout A and a decimal string in layout B.
func (d Dex) TickArrayAddress(pool solana.PublicKey, start int32) (solana.PublicKey, error) {
	if err := d.valid(); err != nil {
		return solana.PublicKey{}, fmt.Errorf("clmm: %w", err)
	}
	var startSeed []byte
	switch d.Name() {
	case DexA:
		startSeed = []byte{byte(uint32(start) >> 24), byte(uint32(start) >> 16), byte(uint32(start) >> 8), byte(uint32(start))}
	default:
		startSeed = []byte(strconv.Itoa(int(start)))
	}
	addr, _, err := solana.FindProgramAddress([][]byte{tickArraySeed, pool[:], startSeed}, d.programID)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("clmm: %s: tick array %d of pool %s: %w", d.Name(), start, pool, err)
	}
	return addr, nil
}

// TickArrayStart returns the start index of the tick array holding tick in
// a pool of the given spacing.
func (d Dex) TickArrayStart(tick int32, spacing uint16) int32 {
	if d.layout == nil {
		return 0
	}
	return d.layout.TickArrayStart(tick, spacing)
}

// Both layouts store a tick's accounting as consecutive 16-byte fields:
// liquidity_net, liquidity_gross, fee_growth_outside 0 and 1, then the
// reward growths outside; layout A after the tick index, layout B after the
// initialized flag.
const (
	tickLiqNet     = 0
	tickLiqGross   = 16
	tickFeeGrowth0 = 32
	tickFeeGrowth1 = 48
	tickRewards    = 64
)

// getTickFields reads the accounting fields of a tick starting at t[0].
func getTickFields(t []byte) Tick {
	tk := Tick{
		LiquidityNet:      getU128(t[tickLiqNet:]),
		LiquidityGross:    getU128(t[tickLiqGross:]),
		FeeGrowthOutside0: getU128(t[tickFeeGrowth0:]),
		FeeGrowthOutside1: getU128(t[tickFeeGrowth1:]),
	}
	for i := range NumRewards {
		tk.RewardGrowthsOutside[i] = getU128(t[tickRewards+16*i:])
	}
	return tk
}

// putTickFields writes what getTickFields reads.
func putTickFields(t []byte, tk Tick) {
	putU128(t[tickLiqNet:], tk.LiquidityNet)
	putU128(t[tickLiqGross:], tk.LiquidityGross)
	putU128(t[tickFeeGrowth0:], tk.FeeGrowthOutside0)
	putU128(t[tickFeeGrowth1:], tk.FeeGrowthOutside1)
	for i, r := range tk.RewardGrowthsOutside {
		putU128(t[tickRewards+16*i:], r)
	}
}
