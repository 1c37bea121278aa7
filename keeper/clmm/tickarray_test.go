package clmm

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestTickArrayStart checks the start-index rounding toward −∞ of both
// programs: layout A's TickArrayState::get_array_start_index
// (raydium-io/raydium-clmm, programs/amm/src/states/tick_array.rs, 60 ticks)
// and layout B's tick.div_euclid(spacing).div_euclid(88) × spacing × 88.
func TestTickArrayStart(t *testing.T) {
	tests := []struct {
		layout  Layout
		tick    int32
		spacing uint16
		want    int32
	}{
		{LayoutA(), 0, 60, 0}, {LayoutA(), 3599, 60, 0}, {LayoutA(), 3600, 60, 3600},
		{LayoutA(), -1, 60, -3600}, {LayoutA(), -3600, 60, -3600}, {LayoutA(), -3601, 60, -7200},
		{LayoutA(), MinTick, 1, -443640}, {LayoutA(), MaxTick, 1, 443580},
		{LayoutB(), 0, 64, 0}, {LayoutB(), 5631, 64, 0}, {LayoutB(), -64, 64, -5632},
		{LayoutB(), -5632, 64, -5632}, {LayoutB(), -5633, 64, -11264},
		{LayoutB(), -1, 1, -88}, {LayoutB(), MinTick, 8, -444224}, {LayoutB(), 87, 1, 0},
	}
	for _, tt := range tests {
		if got := tt.layout.TickArrayStart(tt.tick, tt.spacing); got != tt.want {
			t.Errorf("%s: start of tick %d (spacing %d) = %d, want %d", tt.layout.Name(), tt.tick, tt.spacing, got, tt.want)
		}
	}
}

// TestTickArrayAddress checks the PDA seeds: layout A encodes the start as a
// big-endian i32 (TickArrayState::key), layout B as a decimal string
// (orca-so/whirlpools, the "tick_array" seeds of its tick-array accounts).
func TestTickArrayAddress(t *testing.T) {
	pool := testKey("pool")
	a, b := testDex(t, DexA), testDex(t, DexB)
	gotA, err := a.TickArrayAddress(pool, -3600)
	if err != nil {
		t.Fatal(err)
	}
	wantA, _, _ := solana.FindProgramAddress([][]byte{[]byte("tick_array"), pool[:], {0xff, 0xff, 0xf1, 0xf0}}, a.ProgramID())
	if gotA != wantA {
		t.Errorf("layout A address %s, want %s", gotA, wantA)
	}
	gotB, err := b.TickArrayAddress(pool, -5632)
	if err != nil {
		t.Fatal(err)
	}
	wantB, _, _ := solana.FindProgramAddress([][]byte{[]byte("tick_array"), pool[:], []byte("-5632")}, b.ProgramID())
	if gotB != wantB {
		t.Errorf("layout B address %s, want %s", gotB, wantB)
	}
	if _, err := (Dex{}).TickArrayAddress(pool, 0); err == nil {
		t.Error("zero Dex: no error")
	}
}

func sampleTicks(n int, start int32, spacing int32, initialized ...int) []Tick {
	ticks := make([]Tick, n)
	for _, k := range initialized {
		ticks[k] = Tick{Index: start + int32(k)*spacing, Initialized: true,
			LiquidityNet: neg(U128From64(uint64(k + 1))), LiquidityGross: U128{Hi: uint64(k), Lo: 9},
			FeeGrowthOutside0: U128{Hi: ^uint64(0), Lo: uint64(k)}, FeeGrowthOutside1: U128From64(77),
			RewardGrowthsOutside: [NumRewards]U128{{Lo: 1}, {Hi: 2}, {Hi: 3, Lo: 4}}}
	}
	return ticks
}

func TestTickArrayRoundTrip(t *testing.T) {
	pool := testKey("pool")
	tests := []struct {
		name     string
		layout   Layout
		spacing  uint16
		a        TickArray
		size     int
		discName string
	}{
		{"A", LayoutA(), 60, TickArray{Pool: pool, Start: -3600, Ticks: sampleTicks(60, -3600, 60, 0, 7, 59)}, 10240, "TickArrayState"},
		{"B fixed", LayoutB(), 64, TickArray{Pool: pool, Start: -5632, Ticks: sampleTicks(88, -5632, 64, 0, 87)}, 9988, "TickArray"},
		{"B dynamic", LayoutB(), 64, TickArray{Pool: pool, Start: 5632, Dynamic: true, Ticks: sampleTicks(88, 5632, 64, 3, 64, 87)}, 148 + 3*112, "DynamicTickArray"},
		{"B dynamic empty", LayoutB(), 1, TickArray{Pool: pool, Start: -88, Dynamic: true, Ticks: sampleTicks(88, -88, 1)}, 148, "DynamicTickArray"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.layout.EncodeTickArray(tt.a)
			d := Discriminator(tt.discName)
			if len(b) != tt.size || !bytes.Equal(b[:8], d[:]) {
				t.Fatalf("encoded %d bytes with discriminator %x, want %d and %x", len(b), b[:8], tt.size, d)
			}
			got, err := tt.layout.DecodeTickArray(b, tt.spacing)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got.Pool != tt.a.Pool || got.Start != tt.a.Start || got.Dynamic != tt.a.Dynamic || len(got.Ticks) != len(tt.a.Ticks) {
				t.Fatalf("decoded %+v", got)
			}
			for k, tk := range got.Ticks {
				want := tt.a.Ticks[k]
				if tt.layout.Name() == DexB {
					want.Index = tt.a.Start + int32(k)*int32(tt.spacing) // derived, not stored
				}
				if tt.layout.Name() == DexA {
					want.Initialized = !want.LiquidityGross.IsZero()
				}
				if tk != want {
					t.Fatalf("tick %d = %+v, want %+v", k, tk, want)
				}
			}
		})
	}
}

// TestTickArrayDynamicOffsets checks the byte position of a tick in a
// dynamic array: 60 + 113 × (initialized ticks before it) + 1 ×
// (uninitialized ticks before it), with the bitmap at 44.
func TestTickArrayDynamicOffsets(t *testing.T) {
	a := TickArray{Start: 0, Dynamic: true, Ticks: sampleTicks(88, 0, 1, 2, 5)}
	b := LayoutB().EncodeTickArray(a)
	if bitmap := getU128(b[44:]); bitmap != U128From64(1<<2|1<<5) {
		t.Fatalf("bitmap %s", bitmap)
	}
	at2 := 60 + 2         // two uninitialized ticks before tick 2
	at5 := 60 + 113 + 4*1 // tick 2 initialized, ticks 0, 1, 3, 4 not
	if b[at2] != 1 || b[at5] != 1 || getU128(b[at5+33:]) != a.Ticks[5].FeeGrowthOutside0 {
		t.Fatalf("tags %d, %d; fee growth at tick 5 %s", b[at2], b[at5], getU128(b[at5+33:]))
	}
}

func TestTickArrayDecodeErrors(t *testing.T) {
	pool := testKey("pool")
	fixed := LayoutB().EncodeTickArray(TickArray{Pool: pool, Start: 0, Ticks: sampleTicks(88, 0, 1, 1)})
	dyn := LayoutB().EncodeTickArray(TickArray{Pool: pool, Start: 0, Dynamic: true, Ticks: sampleTicks(88, 0, 1, 1)})
	arrA := LayoutA().EncodeTickArray(TickArray{Pool: pool, Start: 60, Ticks: sampleTicks(60, 60, 1, 1)})
	tests := []struct {
		name   string
		layout Layout
		b      []byte
		want   error
	}{
		{"A short", LayoutA(), arrA[:100], ErrLength},
		{"A misaligned start", LayoutA(), arrA, ErrInvalid}, // 60 is not a start for spacing 60
		{"B fixed wrong disc", LayoutB(), withByte(fixed, 0, fixed[0]^1), ErrDiscriminator},
		{"B fixed bad flag", LayoutB(), withByte(fixed, 12, 2), ErrInvalid},
		{"B dynamic truncated", LayoutB(), dyn[:len(dyn)-1], ErrLength},
		{"B dynamic extra byte", LayoutB(), append(bytes.Clone(dyn), 0), ErrLength},
		{"B dynamic bitmap disagrees", LayoutB(), withByte(dyn, 44, 0), ErrInvalid},
		{"B dynamic too short", LayoutB(), dyn[:147], ErrLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spacing := uint16(1)
			if tt.name == "A misaligned start" {
				spacing = 60
			}
			_, err := tt.layout.DecodeTickArray(tt.b, spacing)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTickArrayTick(t *testing.T) {
	a := TickArray{Start: -5632, Ticks: sampleTicks(88, -5632, 64, 87)}
	if tk, err := a.Tick(-64, 64); err != nil || tk != a.Ticks[87] {
		t.Fatalf("Tick(-64) = %+v, %v", tk, err)
	}
	for _, idx := range []int32{-63, 0, -5696} {
		if _, err := a.Tick(idx, 64); err == nil {
			t.Errorf("Tick(%d): no error", idx)
		}
	}
}

// TestTickArrayDocumentedOffsets builds tick arrays by hand at the offsets
// of shared/research/clmm-fees.md, independently of the encoders.
func TestTickArrayDocumentedOffsets(t *testing.T) {
	pool := testKey("pool")
	want := Tick{Initialized: true, LiquidityNet: neg(U128From64(5)), LiquidityGross: U128From64(5),
		FeeGrowthOutside0: U128{Hi: 1, Lo: 2}, FeeGrowthOutside1: U128{Hi: 3, Lo: 4},
		RewardGrowthsOutside: [NumRewards]U128{{Lo: 5}, {Lo: 6}, {Hi: 7}}}
	at := func(index int32) Tick { w := want; w.Index = index; return w }
	fields := func(b rawAccount, at, liqNet int) {
		b.u128(at+liqNet, want.LiquidityNet)
		b.u128(at+liqNet+16, want.LiquidityGross)
		b.u128(at+liqNet+32, want.FeeGrowthOutside0)
		b.u128(at+liqNet+48, want.FeeGrowthOutside1)
		for i, r := range want.RewardGrowthsOutside {
			b.u128(at+liqNet+64+16*i, r)
		}
	}
	// Layout A: pool_id @8, start_tick_index @40, tick k at 44 + 168·k (tick i32 +0, liquidity_net +4).
	a := newRaw(10240, "TickArrayState")
	a.bytes(8, pool[:])
	a.i32(40, -3600)
	a.i32(44+168*3, -3420)
	fields(a, 44+168*3, 4)
	gotA, err := LayoutA().DecodeTickArray(a, 60)
	if err != nil || gotA.Pool != pool || gotA.Start != -3600 || gotA.Ticks[3] != at(-3420) {
		t.Fatalf("layout A: %+v, %v", gotA.Ticks[3], err)
	}
	// Layout B fixed: start_tick_index @8, tick k at 12 + 113·k (initialized +0, liquidity_net +1),
	// whirlpool @9956.
	b := newRaw(9988, "TickArray")
	b.i32(8, 5632)
	b.bytes(9956, pool[:])
	b[12+113*87] = 1
	fields(b, 12+113*87, 1)
	gotB, err := LayoutB().DecodeTickArray(b, 64)
	if err != nil || gotB.Pool != pool || gotB.Start != 5632 || gotB.Ticks[87] != at(5632+87*64) {
		t.Fatalf("layout B fixed: %+v, %v", gotB.Ticks[87], err)
	}
	// Layout B dynamic: whirlpool @12, tick_bitmap @44, ticks from 60; tick 1 initialized follows
	// tick 0's one-byte tag.
	d := newRaw(148+112, "DynamicTickArray")
	d.i32(8, 0)
	d.bytes(12, pool[:])
	d.u128(44, U128{Lo: 1 << 1})
	d[61] = 1
	fields(d, 61, 1)
	gotD, err := LayoutB().DecodeTickArray(d, 64)
	if err != nil || !gotD.Dynamic || gotD.Pool != pool || gotD.Ticks[1] != at(64) {
		t.Fatalf("layout B dynamic: %+v, %v", gotD.Ticks[1], err)
	}
}

// FuzzDecodeTickArray feeds arbitrary bytes (seeded with valid arrays of
// every format) to both layouts' decoders: they must return an error or an
// array whose ticks all lie in the array, never panic.
func FuzzDecodeTickArray(f *testing.F) {
	pool := testKey("pool")
	f.Add(LayoutA().EncodeTickArray(TickArray{Pool: pool, Ticks: sampleTicks(60, 0, 1, 0, 59)}), uint16(1))
	f.Add(LayoutB().EncodeTickArray(TickArray{Pool: pool, Ticks: sampleTicks(88, 0, 1, 3)}), uint16(1))
	f.Add(LayoutB().EncodeTickArray(TickArray{Pool: pool, Dynamic: true, Ticks: sampleTicks(88, 0, 1, 0, 87)}), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, spacing uint16) {
		for _, l := range []Layout{LayoutA(), LayoutB()} {
			a, err := l.DecodeTickArray(data, spacing)
			if err != nil {
				continue
			}
			if len(a.Ticks) != int(l.TicksPerArray()) || l.TickArrayStart(a.Start, spacing) != a.Start {
				t.Fatalf("%s: decoded %d ticks from start %d", l.Name(), len(a.Ticks), a.Start)
			}
		}
	})
}
