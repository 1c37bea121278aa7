package clmm

import (
	"bytes"
	"fmt"
)

// Layout B tick arrays come in two account formats at the same address,
// told apart by discriminator.
//
// Fixed (TickArray, 9988 bytes): start_tick_index i32 @8, 88 ticks of 113
// bytes from 12, whirlpool @9956. Offsets inside a tick (Tick, packed):
// initialized bool +0, liquidity_net i128 +1, liquidity_gross u128 +17,
// fee_growth_outside_a +33, fee_growth_outside_b +49,
// reward_growths_outside +65, +81, +97.
//
// Dynamic (DynamicTickArray, 148 + 112 × initialized ticks bytes):
// start_tick_index i32 @8, whirlpool @12, tick_bitmap u128 @44 (bit k set
// when tick k is initialized), then the 88 ticks from 60, each a tag byte
// (0 uninitialized; 1 initialized, followed by the 112 bytes of a fixed tick
// without its initialized flag).
const (
	bTicksPerArray = 88
	bFixedSize     = 9988
	bFixedStart    = 8
	bFixedTicks    = 12
	bFixedPool     = 9956
	bTickSize      = 113
	bTickInit      = 0
	bTickFields    = 1 // liquidity_net, then the rest (see getTickFields)

	bDynStart   = 8
	bDynPool    = 12
	bDynBitmap  = 44
	bDynTicks   = 60
	bDynMinSize = bDynTicks + bTicksPerArray       // 148: every tick uninitialized
	bDynMaxSize = bDynMinSize + 112*bTicksPerArray // 10004
)

// tickArraysB is layout B's tick-array codec.
type tickArraysB struct{}

var (
	bFixedSpec = newSpec(DexB, AccountTickArray, "TickArray", bFixedSize)
	bDynSpec   = newSpec(DexB, AccountTickArray, "DynamicTickArray", 0)
)

func (tickArraysB) TicksPerArray() int32 { return bTicksPerArray }

func (tickArraysB) TickArrayStart(tick int32, spacing uint16) int32 {
	return arrayStart(tick, spacing, bTicksPerArray)
}

func (l tickArraysB) DecodeTickArray(b []byte, spacing uint16) (TickArray, error) {
	var (
		a   TickArray
		err error
	)
	switch {
	case len(b) >= 8 && bytes.Equal(b[:8], bDynSpec.disc[:]):
		a, err = decodeDynamic(b)
	default:
		a, err = decodeFixed(b)
	}
	if err != nil {
		return TickArray{}, err
	}
	spec := bFixedSpec
	if a.Dynamic {
		spec = bDynSpec
	}
	if err := checkStart(spec, a.Start, spacing, l.TickArrayStart); err != nil {
		return TickArray{}, err
	}
	for k := range a.Ticks {
		a.Ticks[k].Index = a.Start + int32(k)*int32(spacing)
	}
	return a, nil
}

func decodeFixed(b []byte) (TickArray, error) {
	if err := bFixedSpec.check(b); err != nil {
		return TickArray{}, err
	}
	a := TickArray{Pool: getKey(b, bFixedPool), Start: getI32(b, bFixedStart), Ticks: make([]Tick, bTicksPerArray)}
	for k := range a.Ticks {
		t := b[bFixedTicks+bTickSize*k:]
		if t[bTickInit] > 1 {
			return TickArray{}, bFixedSpec.fail(fmt.Errorf("%w: tick %d has initialized flag %d", ErrInvalid, k, t[bTickInit]))
		}
		a.Ticks[k] = decodeTickB(t, t[bTickInit] == 1)
	}
	return a, nil
}

func decodeDynamic(b []byte) (TickArray, error) {
	if len(b) < bDynMinSize || len(b) > bDynMaxSize {
		return TickArray{}, bDynSpec.fail(fmt.Errorf("%w: %d bytes, want %d to %d for DynamicTickArray", ErrLength, len(b), bDynMinSize, bDynMaxSize))
	}
	a := TickArray{Pool: getKey(b, bDynPool), Start: getI32(b, bDynStart), Dynamic: true, Ticks: make([]Tick, bTicksPerArray)}
	bitmap := getU128(b[bDynBitmap:])
	at := bDynTicks
	for k := range a.Ticks {
		if at >= len(b) {
			return TickArray{}, bDynSpec.fail(fmt.Errorf("%w: account ends before tick %d", ErrLength, k))
		}
		tag := b[at]
		if tag > 1 || (tag == 1) != bitSet(bitmap, k) {
			return TickArray{}, bDynSpec.fail(fmt.Errorf("%w: tick %d has tag %d but bitmap bit %t", ErrInvalid, k, tag, bitSet(bitmap, k)))
		}
		if tag == 0 {
			at++
			continue
		}
		if at+bTickSize > len(b) {
			return TickArray{}, bDynSpec.fail(fmt.Errorf("%w: account ends inside tick %d", ErrLength, k))
		}
		a.Ticks[k] = decodeTickB(b[at:], true)
		at += bTickSize
	}
	if at != len(b) {
		return TickArray{}, bDynSpec.fail(fmt.Errorf("%w: %d bytes after the last tick", ErrLength, len(b)-at))
	}
	return a, nil
}

// decodeTickB reads a layout B tick whose fields start after the flag byte
// at t[0].
func decodeTickB(t []byte, initialized bool) Tick {
	tk := getTickFields(t[bTickFields:])
	tk.Initialized = initialized
	return tk
}

// putTickB writes tk's fields after the flag byte at t[0] and sets the flag.
func putTickB(t []byte, tk Tick) {
	if tk.Initialized {
		t[bTickInit] = 1
	}
	putTickFields(t[bTickFields:], tk)
}

func (tickArraysB) EncodeTickArray(a TickArray) []byte {
	ticks := make([]Tick, bTicksPerArray)
	copy(ticks, a.Ticks)
	if !a.Dynamic {
		b := bFixedSpec.newAccount()
		putI32(b, bFixedStart, a.Start)
		putKey(b, bFixedPool, a.Pool)
		for k, tk := range ticks {
			putTickB(b[bFixedTicks+bTickSize*k:], tk)
		}
		return b
	}
	var bitmap U128
	size := bDynMinSize
	for k, tk := range ticks {
		if tk.Initialized {
			bitmap = setBit(bitmap, k)
			size += bTickSize - 1
		}
	}
	b := make([]byte, size)
	copy(b, bDynSpec.disc[:])
	putI32(b, bDynStart, a.Start)
	putKey(b, bDynPool, a.Pool)
	putU128(b[bDynBitmap:], bitmap)
	at := bDynTicks
	for _, tk := range ticks {
		if !tk.Initialized {
			at++
			continue
		}
		putTickB(b[at:], tk)
		at += bTickSize
	}
	return b
}

func bitSet(u U128, k int) bool {
	if k < 64 {
		return u.Lo&(1<<k) != 0
	}
	return u.Hi&(1<<(k-64)) != 0
}

func setBit(u U128, k int) U128 {
	if k < 64 {
		u.Lo |= 1 << k
	} else {
		u.Hi |= 1 << (k - 64)
	}
	return u
}
