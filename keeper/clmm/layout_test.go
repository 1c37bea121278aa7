package clmm

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The discriminators must equal the ones public decoders of the two programs
// use (checked there as literal byte strings), and sha256("account:<Name>").
func TestDiscriminators(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"PoolState", "f7ede3f5d7c3de46"},
		{"PersonalPositionState", "466f967ee60f1975"},
		{"Whirlpool", "3f95d10ce1806309"},
		{"Position", "aabc8fe47a40f7d0"},
	}
	for _, tt := range tests {
		d := Discriminator(tt.name)
		if got := hex.EncodeToString(d[:]); got != tt.want {
			t.Errorf("Discriminator(%q) = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// rawAccount builds account bytes by hand at the offsets documented in
// shared/research/market-facts.md, independently of the encoders.
type rawAccount []byte

func newRaw(size int, structName string) rawAccount {
	b := make(rawAccount, size)
	d := Discriminator(structName)
	copy(b, d[:])
	return b
}
func (b rawAccount) bytes(off int, v []byte) { copy(b[off:], v) }
func (b rawAccount) u16(off int, v uint16)   { binary.LittleEndian.PutUint16(b[off:], v) }
func (b rawAccount) i32(off int, v int32)    { binary.LittleEndian.PutUint32(b[off:], uint32(v)) }
func (b rawAccount) u64(off int, v uint64)   { binary.LittleEndian.PutUint64(b[off:], v) }
func (b rawAccount) u128(off int, v U128) {
	binary.LittleEndian.PutUint64(b[off:], v.Lo)
	binary.LittleEndian.PutUint64(b[off+8:], v.Hi)
}

// withGrowth sets the fee and reward fields of a pool and a position.
func withGrowth(pool Pool, pos Position) (Pool, Position) {
	pool.FeeGrowthGlobal0, pool.FeeGrowthGlobal1 = U128{Hi: 0xa1, Lo: 0xa2}, U128{Hi: 0xa3, Lo: 0xa4}
	pool.Rewards[0] = PoolReward{Mint: testKey("reward 0"), EmissionsPerSecondX64: U128{Lo: 77}, GrowthGlobal: U128{Hi: 0xb1}}
	pool.Rewards[2] = PoolReward{Mint: testKey("reward 2"), EmissionsPerSecondX64: U128{Hi: 1}, GrowthGlobal: U128{Hi: ^uint64(0), Lo: 5}}
	pos.Rewards = [NumRewards]PositionReward{{GrowthInside: U128{Hi: 0xc1}, Owed: 11}, {}, {GrowthInside: U128{Lo: 0xc3}, Owed: 33}}
	return pool, pos
}

// rewardsRaw writes pool reward slots at base + size·i: mint, emissions and
// growth at the given offsets inside a slot.
func rewardsRaw(b rawAccount, pool Pool, base, size, mint, emissions, growth int) {
	for i, r := range pool.Rewards {
		at := base + size*i
		b.bytes(at+mint, r.Mint[:])
		b.u128(at+emissions, r.EmissionsPerSecondX64)
		b.u128(at+growth, r.GrowthGlobal)
	}
}

// positionRewardsRaw writes position reward slots of 24 bytes from base.
func positionRewardsRaw(p rawAccount, pos Position, base int) {
	for i, r := range pos.Rewards {
		p.u128(base+24*i, r.GrowthInside)
		p.u64(base+24*i+16, r.Owed)
	}
}

func TestDecodeDocumentedOffsetsA(t *testing.T) {
	want, wantPos := withGrowth(samplePoolA(), samplePosition(testKey("pool"), testKey("nft"), -120, 360))
	b := newRaw(1544, "PoolState")
	b[8] = want.Bump
	b.bytes(9, want.Config[:])
	b.bytes(41, testKey("owner").Bytes()) // owner: not decoded, must not leak into other fields
	b.bytes(73, want.Mint0[:])
	b.bytes(105, want.Mint1[:])
	b.bytes(137, want.Vault0[:])
	b.bytes(169, want.Vault1[:])
	b.bytes(201, testKey("observation").Bytes())
	b[233], b[234] = want.Decimals0, want.Decimals1
	b.u16(235, want.TickSpacing)
	b.u128(237, want.Liquidity)
	b.u128(253, want.SqrtPriceX64)
	b.i32(269, want.TickCurrent)
	// shared/research/clmm-fees.md: fee growth @277, @293; reward_infos at 397 + 169·i, packed:
	// emissions_per_second_x64 +25, token_mint +57, reward_growth_global_x64 +153.
	b.u128(277, want.FeeGrowthGlobal0)
	b.u128(293, want.FeeGrowthGlobal1)
	rewardsRaw(b, want, 397, 169, 57, 25, 153)
	got, err := LayoutA().DecodePool(b)
	if err != nil {
		t.Fatalf("DecodePool: %v", err)
	}
	if got != want {
		t.Fatalf("DecodePool =\n%+v\nwant\n%+v", got, want)
	}

	wantPos.HasBump, wantPos.Bump = true, 251
	p := newRaw(281, "PersonalPositionState")
	p[8] = wantPos.Bump
	p.bytes(9, wantPos.Mint[:])
	p.bytes(41, wantPos.Pool[:])
	p.i32(73, wantPos.Range.Lower)
	p.i32(77, wantPos.Range.Upper)
	p.u128(81, wantPos.Liquidity)
	p.u128(97, wantPos.FeeGrowthInside0)
	p.u128(113, wantPos.FeeGrowthInside1)
	p.u64(129, wantPos.FeesOwed0)
	p.u64(137, wantPos.FeesOwed1)
	positionRewardsRaw(p, wantPos, 145)
	gotPos, err := LayoutA().DecodePosition(p)
	if err != nil {
		t.Fatalf("DecodePosition: %v", err)
	}
	if gotPos != wantPos {
		t.Fatalf("DecodePosition =\n%+v\nwant\n%+v", gotPos, wantPos)
	}
}

func TestDecodeDocumentedOffsetsB(t *testing.T) {
	want, wantPos := withGrowth(samplePoolB(), samplePosition(testKey("whirl"), testKey("pos mint"), -443584, 443584))
	want.RewardLastUpdated = 1_700_000_000
	b := newRaw(653, "Whirlpool")
	b.bytes(8, want.Config[:])
	b[40] = want.Bump
	b.u16(41, want.TickSpacing)
	b.u16(43, want.TickSpacing) // fee tier index seed: not decoded
	b.u16(45, uint16(want.FeeRate))
	b.u16(47, 1300) // protocol fee rate: not decoded
	b.u128(49, want.Liquidity)
	b.u128(65, want.SqrtPriceX64)
	b.i32(81, want.TickCurrent)
	b.bytes(101, want.Mint0[:])
	b.bytes(133, want.Vault0[:])
	b.bytes(181, want.Mint1[:])
	b.bytes(213, want.Vault1[:])
	// shared/research/clmm-fees.md: fee growth @165, @245; reward_last_updated_timestamp @261;
	// reward_infos at 269 + 128·i: mint +0, emissions_per_second_x64 +96, growth_global_x64 +112.
	b.u128(165, want.FeeGrowthGlobal0)
	b.u128(245, want.FeeGrowthGlobal1)
	b.u64(261, want.RewardLastUpdated)
	rewardsRaw(b, want, 269, 128, 0, 96, 112)
	got, err := LayoutB().DecodePool(b)
	if err != nil {
		t.Fatalf("DecodePool: %v", err)
	}
	if got != want {
		t.Fatalf("DecodePool =\n%+v\nwant\n%+v", got, want)
	}

	p := newRaw(216, "Position")
	p.bytes(8, wantPos.Pool[:])
	p.bytes(40, wantPos.Mint[:])
	p.u128(72, wantPos.Liquidity)
	p.i32(88, wantPos.Range.Lower)
	p.i32(92, wantPos.Range.Upper)
	p.u128(96, wantPos.FeeGrowthInside0)
	p.u64(112, wantPos.FeesOwed0)
	p.u128(120, wantPos.FeeGrowthInside1)
	p.u64(136, wantPos.FeesOwed1)
	positionRewardsRaw(p, wantPos, 144)
	gotPos, err := LayoutB().DecodePosition(p)
	if err != nil {
		t.Fatalf("DecodePosition: %v", err)
	}
	if gotPos != wantPos {
		t.Fatalf("DecodePosition =\n%+v\nwant\n%+v", gotPos, wantPos)
	}
}

func TestRoundTrip(t *testing.T) {
	posA := samplePosition(testKey("pool"), testKey("mint"), -443580, -600)
	posA.HasBump, posA.Bump = true, 200
	posB := samplePosition(testKey("pool b"), testKey("mint b"), -128, 0)
	tests := []struct {
		layout Layout
		pool   Pool
		pos    Position
	}{
		{LayoutA(), samplePoolA(), posA},
		{LayoutB(), samplePoolB(), posB},
	}
	for i := range tests {
		tests[i].pool, tests[i].pos = withGrowth(tests[i].pool, tests[i].pos)
	}
	tests[1].pool.RewardLastUpdated = 42
	for _, tt := range tests {
		t.Run(tt.layout.Name(), func(t *testing.T) {
			pb := tt.layout.EncodePool(tt.pool)
			if len(pb) != tt.layout.PoolSize() {
				t.Fatalf("EncodePool length %d, want %d", len(pb), tt.layout.PoolSize())
			}
			pool, err := tt.layout.DecodePool(pb)
			if err != nil || pool != tt.pool {
				t.Fatalf("pool round trip = %+v, %v; want %+v", pool, err, tt.pool)
			}
			qb := tt.layout.EncodePosition(tt.pos)
			if len(qb) != tt.layout.PositionSize() {
				t.Fatalf("EncodePosition length %d, want %d", len(qb), tt.layout.PositionSize())
			}
			pos, err := tt.layout.DecodePosition(qb)
			if err != nil || pos != tt.pos {
				t.Fatalf("position round trip = %+v, %v; want %+v", pos, err, tt.pos)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	a, b := LayoutA(), LayoutB()
	goodPoolA := a.EncodePool(samplePoolA())
	goodPosB := b.EncodePosition(samplePosition(testKey("p"), testKey("m"), 0, 64))
	tests := []struct {
		name    string
		decode  func([]byte) error
		data    []byte
		wantErr error
		wantMsg string
	}{
		{"A pool short", poolDecoder(a), goodPoolA[:1000], ErrLength,
			"clmm: dex-a pool account: unexpected account length: 1000 bytes, want 1544 for PoolState"},
		{"A pool long", poolDecoder(a), append(append([]byte{}, goodPoolA...), 0), ErrLength, "1545 bytes, want 1544"},
		{"A pool empty", poolDecoder(a), []byte{}, ErrLength, "0 bytes"},
		{"A pool bad discriminator", poolDecoder(a), withByte(goodPoolA, 0, 0), ErrDiscriminator,
			"clmm: dex-a pool account: wrong account discriminator: 00ede3f5d7c3de46, want f7ede3f5d7c3de46 (PoolState)"},
		{"A position given a pool", positionDecoder(a), goodPoolA, ErrLength, "want 281 for PersonalPositionState"},
		{"B pool given layout A bytes", poolDecoder(b), goodPoolA, ErrLength, "want 653 for Whirlpool"},
		{"B position bad discriminator", positionDecoder(b), withByte(goodPosB, 7, 0xff), ErrDiscriminator,
			"clmm: dex-b position account: wrong account discriminator: aabc8fe47a40f7ff, want aabc8fe47a40f7d0 (Position)"},
		{"A pool zero spacing", poolDecoder(a), a.EncodePool(withSpacing(samplePoolA(), 0)), ErrInvalid, "tick spacing is zero"},
		{"B pool tick too high", poolDecoder(b), b.EncodePool(withTick(samplePoolB(), 443637)), ErrInvalid,
			"current tick 443637 outside [-443636, 443636]"},
		{"B position empty range", positionDecoder(b), b.EncodePosition(samplePosition(testKey("p"), testKey("m"), 64, 64)),
			ErrInvalid, "tick range [64, 64) is empty"},
		{"A position below min tick", positionDecoder(a), a.EncodePosition(samplePosition(testKey("p"), testKey("m"), -443637, 0)),
			ErrInvalid, "tick range [-443637, 0) is outside [-443636, 443636]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.data)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			var ae *AccountError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T is not an *AccountError", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
		})
	}
}

func poolDecoder(l Layout) func([]byte) error {
	return func(b []byte) error { _, err := l.DecodePool(b); return err }
}

func positionDecoder(l Layout) func([]byte) error {
	return func(b []byte) error { _, err := l.DecodePosition(b); return err }
}

func withByte(b []byte, i int, v byte) []byte {
	c := append([]byte{}, b...)
	c[i] = v
	return c
}

func withSpacing(p Pool, s uint16) Pool { p.TickSpacing = s; return p }

func withTick(p Pool, t int32) Pool { p.TickCurrent = t; return p }

func TestLayoutByName(t *testing.T) {
	for _, name := range []string{DexA, DexB} {
		l, err := LayoutByName(name)
		if err != nil || l.Name() != name {
			t.Errorf("LayoutByName(%q) = %v, %v", name, l, err)
		}
	}
	if _, err := LayoutByName("dex-c"); err == nil || !strings.Contains(err.Error(), `unknown dex layout "dex-c"`) {
		t.Errorf("LayoutByName(dex-c) error = %v", err)
	}
}
