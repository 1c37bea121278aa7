package clmm

import "fmt"

// Layout A tick arrays (TickArrayState, 10240 bytes, zero-copy and packed):
// pool_id @8, start_tick_index i32 @40, 60 ticks of 168 bytes from 44,
// initialized_tick_count u8 after them. Offsets inside a tick (TickState):
// tick i32 +0, liquidity_net i128 +4, liquidity_gross u128 +20,
// fee_growth_outside_0_x64 +36, fee_growth_outside_1_x64 +52,
// reward_growths_outside_x64 +68, +84, +100.
const (
	aTickArraySize = 10240
	aTicksPerArray = 60
	aTAPool        = 8
	aTAStart       = 40
	aTATicks       = 44
	aTickSize      = 168
	aTAInitialized = aTATicks + aTickSize*aTicksPerArray // initialized_tick_count u8
	aTickIndex     = 0
	aTickFields    = 4 // liquidity_net, then the rest (see getTickFields)
)

// tickArraysA is layout A's tick-array codec.
type tickArraysA struct{}

var aTickArraySpec = newSpec(DexA, AccountTickArray, "TickArrayState", aTickArraySize)

func (tickArraysA) TicksPerArray() int32 { return aTicksPerArray }

func (tickArraysA) TickArrayStart(tick int32, spacing uint16) int32 {
	return arrayStart(tick, spacing, aTicksPerArray)
}

func (l tickArraysA) DecodeTickArray(b []byte, spacing uint16) (TickArray, error) {
	if err := aTickArraySpec.check(b); err != nil {
		return TickArray{}, err
	}
	a := TickArray{Pool: getKey(b, aTAPool), Start: getI32(b, aTAStart), Ticks: make([]Tick, aTicksPerArray)}
	if err := checkStart(aTickArraySpec, a.Start, spacing, l.TickArrayStart); err != nil {
		return TickArray{}, err
	}
	for k := range a.Ticks {
		t := b[aTATicks+aTickSize*k:]
		tk := getTickFields(t[aTickFields:])
		tk.Index = getI32(t, aTickIndex)
		tk.Initialized = !tk.LiquidityGross.IsZero()
		a.Ticks[k] = tk
	}
	return a, nil
}

// EncodeTickArray writes a; each tick's Index is stored as given and
// initialized_tick_count counts the ticks with liquidity.
func (tickArraysA) EncodeTickArray(a TickArray) []byte {
	b := aTickArraySpec.newAccount()
	putKey(b, aTAPool, a.Pool)
	putI32(b, aTAStart, a.Start)
	n := 0
	for k, tk := range a.Ticks[:min(len(a.Ticks), aTicksPerArray)] {
		t := b[aTATicks+aTickSize*k:]
		putI32(t, aTickIndex, tk.Index)
		putTickFields(t[aTickFields:], tk)
		if !tk.LiquidityGross.IsZero() {
			n++
		}
	}
	b[aTAInitialized] = byte(n)
	return b
}

// checkStart verifies that a decoded start index is one the program could
// have created: the start of the array holding it.
func checkStart(s accountSpec, start int32, spacing uint16, startOf func(int32, uint16) int32) error {
	if spacing == 0 {
		return s.fail(fmt.Errorf("%w: tick spacing is zero", ErrInvalid))
	}
	if startOf(start, spacing) != start {
		return s.fail(fmt.Errorf("%w: start tick %d is not a tick-array start for spacing %d", ErrInvalid, start, spacing))
	}
	return nil
}
