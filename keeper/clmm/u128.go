package clmm

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
)

// U128 is an unsigned 128-bit integer as stored in CLMM accounts (liquidity,
// Q64.64 prices and fee growth). It is comparable with ==.
type U128 struct {
	// Hi holds the upper 64 bits.
	Hi uint64
	// Lo holds the lower 64 bits.
	Lo uint64
}

// U128From64 returns v as a U128.
func U128From64(v uint64) U128 { return U128{Lo: v} }

// U128FromBig converts a non-negative integer below 2^128 to a U128.
func U128FromBig(v *big.Int) (U128, error) {
	if v == nil || v.Sign() < 0 || v.BitLen() > 128 {
		return U128{}, errors.New("value out of range for an unsigned 128-bit integer")
	}
	var buf [16]byte
	v.FillBytes(buf[:])
	return U128{Hi: binary.BigEndian.Uint64(buf[:8]), Lo: binary.BigEndian.Uint64(buf[8:])}, nil
}

// IsZero reports whether u is zero.
func (u U128) IsZero() bool { return u.Hi == 0 && u.Lo == 0 }

// Big returns u as a new big.Int.
func (u U128) Big() *big.Int {
	hi := new(big.Int).SetUint64(u.Hi)
	return hi.Lsh(hi, 64).Or(hi, new(big.Int).SetUint64(u.Lo))
}

// Float64 returns u as a float64: exact below 2^53, within a relative 2^-52
// above.
func (u U128) Float64() float64 {
	return math.Ldexp(float64(u.Hi), 64) + float64(u.Lo)
}

// String returns u in decimal.
func (u U128) String() string { return u.Big().String() }

// putU128 writes u little-endian into b[0:16].
func putU128(b []byte, u U128) {
	binary.LittleEndian.PutUint64(b[0:8], u.Lo)
	binary.LittleEndian.PutUint64(b[8:16], u.Hi)
}

// getU128 reads a little-endian U128 from b[0:16].
func getU128(b []byte) U128 {
	return U128{Lo: binary.LittleEndian.Uint64(b[0:8]), Hi: binary.LittleEndian.Uint64(b[8:16])}
}
