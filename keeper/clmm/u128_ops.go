package clmm

import "math/bits"

// The programs keep fee and reward growth as u128 values that wrap modulo
// 2^128. The operations below are the exact integer arithmetic they use;
// none of them allocates.

// Add returns u + v modulo 2^128 (Rust's u128::wrapping_add).
func (u U128) Add(v U128) U128 {
	lo, carry := bits.Add64(u.Lo, v.Lo, 0)
	hi, _ := bits.Add64(u.Hi, v.Hi, carry)
	return U128{Hi: hi, Lo: lo}
}

// Sub returns u - v modulo 2^128 (Rust's u128::wrapping_sub).
func (u U128) Sub(v U128) U128 {
	lo, borrow := bits.Sub64(u.Lo, v.Lo, 0)
	hi, _ := bits.Sub64(u.Hi, v.Hi, borrow)
	return U128{Hi: hi, Lo: lo}
}

// Cmp compares u and v: -1 when u < v, 0 when equal, +1 when u > v.
func (u U128) Cmp(v U128) int {
	switch {
	case u.Hi < v.Hi || (u.Hi == v.Hi && u.Lo < v.Lo):
		return -1
	case u == v:
		return 0
	}
	return 1
}

// u256 is an unsigned 256-bit integer, least significant limb first.
type u256 [4]uint64

// mul256 returns the full 256-bit product u × v.
func mul256(u, v U128) u256 {
	h00, l00 := bits.Mul64(u.Lo, v.Lo)
	h01, l01 := bits.Mul64(u.Lo, v.Hi)
	h10, l10 := bits.Mul64(u.Hi, v.Lo)
	h11, l11 := bits.Mul64(u.Hi, v.Hi)
	var r u256
	r[0] = l00
	var c1, c2 uint64
	r[1], c1 = bits.Add64(h00, l01, 0)
	r[1], c2 = bits.Add64(r[1], l10, 0)
	var d1, d2, d3 uint64
	r[2], d1 = bits.Add64(h01, h10, c1)
	r[2], d2 = bits.Add64(r[2], l11, c2)
	r[3], d3 = bits.Add64(h11, d1, d2)
	_ = d3 // u × v < 2^256: no carry out of the top limb
	return r
}

// mulShr64Checked returns (u × v) >> 64 as layout B computes it
// (checked_mul_shift_right): ok is false when the product u × v does not
// fit in 128 bits. The shifted product of a 128-bit value always fits in
// 64 bits.
func mulShr64Checked(u, v U128) (uint64, bool) {
	p := mul256(u, v)
	if p[2] != 0 || p[3] != 0 {
		return 0, false
	}
	return p[1], true
}

// mulShr64Wide returns floor(u × v / 2^64) from a 256-bit intermediate, as
// layout A's mul_div_floor by Q64 does. fits128 reports whether the
// quotient fits in 128 bits (layout A's U128 mul_div_floor returns None
// otherwise). The quotient is returned as an underflow u64: its value when
// it is below u64::MAX, 0 otherwise (layout A's to_underflow_u64).
func mulShr64Wide(u, v U128) (underflow uint64, fits128 bool) {
	p := mul256(u, v)
	fits128 = p[3] == 0
	if p[2] != 0 || p[3] != 0 || p[1] == ^uint64(0) {
		return 0, fits128
	}
	return p[1], fits128
}
