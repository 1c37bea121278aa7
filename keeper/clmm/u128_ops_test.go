package clmm

import (
	"math/big"
	"testing"
)

var (
	two128 = new(big.Int).Lsh(big.NewInt(1), 128)
	maxU64 = new(big.Int).SetUint64(^uint64(0))
)

// checkOps compares the u128 operations on u and v with math/big.
func checkOps(t *testing.T, u, v U128) {
	t.Helper()
	bu, bv := u.Big(), v.Big()
	mod := func(x *big.Int) *big.Int { return x.Mod(x, two128) }
	if got, want := u.Add(v).Big(), mod(new(big.Int).Add(bu, bv)); got.Cmp(want) != 0 {
		t.Fatalf("%s + %s = %s, want %s", u, v, got, want)
	}
	if got, want := u.Sub(v).Big(), mod(new(big.Int).Sub(bu, bv)); got.Cmp(want) != 0 {
		t.Fatalf("%s - %s = %s, want %s", u, v, got, want)
	}
	if got, want := u.Cmp(v), bu.Cmp(bv); got != want {
		t.Fatalf("Cmp(%s, %s) = %d, want %d", u, v, got, want)
	}
	prod := new(big.Int).Mul(bu, bv)
	p := mul256(u, v)
	got := new(big.Int)
	for i := 3; i >= 0; i-- {
		got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(p[i]))
	}
	if got.Cmp(prod) != 0 {
		t.Fatalf("%s × %s = %s, want %s", u, v, got, prod)
	}
	shifted := new(big.Int).Rsh(prod, 64)
	// Layout B: checked 128-bit product, then >> 64.
	gotB, okB := mulShr64Checked(u, v)
	if wantOK := prod.Cmp(two128) < 0; okB != wantOK || (okB && new(big.Int).SetUint64(gotB).Cmp(shifted) != 0) {
		t.Fatalf("mulShr64Checked(%s, %s) = %d, %t; want %s, %t", u, v, gotB, okB, shifted, wantOK)
	}
	// Layout A: 256-bit intermediate, quotient below u64::MAX or 0.
	gotA, fits := mulShr64Wide(u, v)
	wantA := uint64(0)
	if shifted.Cmp(maxU64) < 0 {
		wantA = shifted.Uint64()
	}
	if wantFits := shifted.BitLen() <= 128; gotA != wantA || fits != wantFits {
		t.Fatalf("mulShr64Wide(%s, %s) = %d, %t; want %d, %t", u, v, gotA, fits, wantA, wantFits)
	}
}

func TestU128OpsEdges(t *testing.T) {
	max := U128{Hi: ^uint64(0), Lo: ^uint64(0)}
	vals := []U128{{}, {Lo: 1}, {Lo: ^uint64(0)}, {Hi: 1}, {Hi: 1 << 63}, max, {Hi: ^uint64(0)}, {Hi: 7, Lo: 1 << 63},
		{Lo: 1<<63 - 1}, U128{Hi: 1}.Sub(U128{Lo: 1})}
	for _, u := range vals {
		for _, v := range vals {
			checkOps(t, u, v)
		}
	}
	// u64::MAX exactly becomes 0 in layout A (to_underflow_u64 keeps only
	// values strictly below it).
	if got, fits := mulShr64Wide(U128{Lo: ^uint64(0)}, U128{Hi: 1}); got != 0 || !fits {
		t.Fatalf("u64::MAX quotient = %d, %t; want 0, true", got, fits)
	}
}

// FuzzU128Ops checks the wrapping u128 arithmetic and both layouts'
// multiply-and-shift against math/big.
func FuzzU128Ops(f *testing.F) {
	f.Add(uint64(0), uint64(0), uint64(0), uint64(0))
	f.Add(^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0))
	f.Add(uint64(1), uint64(0), uint64(0), uint64(1<<63))
	f.Add(^uint64(0), uint64(5), uint64(0), uint64(1000))
	f.Fuzz(func(t *testing.T, uh, ul, vh, vl uint64) {
		checkOps(t, U128{Hi: uh, Lo: ul}, U128{Hi: vh, Lo: vl})
	})
}
