package clmm

import (
	"fmt"
	"math"
	"math/big"
)

// Tick bounds shared by both layouts: price 1.0001^tick spans about
// 2^-64 .. 2^64.
const (
	// MinTick is the lowest tick either program accepts.
	MinTick int32 = -443636
	// MaxTick is the highest tick either program accepts.
	MaxTick int32 = 443636
)

// logTickBase is ln(1.0001), the log-price step between neighbouring ticks.
// Log1p keeps it accurate to a few units in 10^-21, where math.Log(1.0001)
// would carry the float64 rounding of 1.0001 (about 1e-17 relative, which
// 443636 ticks amplify to 1e-11).
var logTickBase = math.Log1p(1e-4)

// RawPriceFromSqrtX64 returns (sqrtPriceX64 / 2^64)^2: the price in base
// units of token 1 per base unit of token 0.
func RawPriceFromSqrtX64(sqrtPriceX64 U128) float64 {
	s := math.Ldexp(sqrtPriceX64.Float64(), -64)
	return s * s
}

// PriceFromSqrtX64 returns the price in whole tokens of token 1 per whole
// token 0: the raw price × 10^(decimals0 − decimals1).
func PriceFromSqrtX64(sqrtPriceX64 U128, decimals0, decimals1 uint8) float64 {
	return ScalePrice(RawPriceFromSqrtX64(sqrtPriceX64), decimals0, decimals1)
}

// ScalePrice turns a raw price (base units) into a price in whole tokens:
// raw × 10^(decimals0 − decimals1).
func ScalePrice(raw float64, decimals0, decimals1 uint8) float64 {
	return raw * math.Pow10(int(decimals0)-int(decimals1))
}

// UnscalePrice turns a price in whole tokens into a raw price (base units):
// price × 10^(decimals1 − decimals0).
func UnscalePrice(price float64, decimals0, decimals1 uint8) float64 {
	return price * math.Pow10(int(decimals1)-int(decimals0))
}

// PriceAtTick returns the raw price at tick: 1.0001^tick, computed as
// exp(tick × ln 1.0001) to a relative error below 1e-14 over all ticks.
func PriceAtTick(tick int32) float64 { return math.Exp(float64(tick) * logTickBase) }

// TickAtPrice returns the tick whose price range holds the raw price: the
// largest tick t with PriceAtTick(t) <= raw, as the programs define the
// current tick. It fails for prices that are not positive and finite or whose
// tick lies outside [MinTick, MaxTick].
func TickAtPrice(raw float64) (int32, error) {
	if !(raw > 0) || math.IsInf(raw, 1) {
		return 0, fmt.Errorf("clmm: price %v is not a positive finite number", raw)
	}
	t := math.Floor(math.Log(raw) / logTickBase)
	if t < float64(MinTick)-1 || t > float64(MaxTick)+1 {
		return 0, fmt.Errorf("clmm: price %g is outside the tick range [%d, %d]", raw, MinTick, MaxTick)
	}
	tick := int32(t)
	// The logarithm can land a hair on the wrong side of a tick boundary;
	// settle on the definition itself.
	for PriceAtTick(tick) > raw {
		tick--
	}
	for PriceAtTick(tick+1) <= raw {
		tick++
	}
	if tick < MinTick || tick > MaxTick {
		return 0, fmt.Errorf("clmm: price %g is outside the tick range [%d, %d]", raw, MinTick, MaxTick)
	}
	return tick, nil
}

// SqrtPriceX64FromRawPrice returns sqrt(raw) × 2^64 (Q64.64), truncated: the
// inverse of [RawPriceFromSqrtX64], to float64 precision.
func SqrtPriceX64FromRawPrice(raw float64) (U128, error) {
	if !(raw > 0) || math.IsInf(raw, 1) {
		return U128{}, fmt.Errorf("clmm: price %v is not a positive finite number", raw)
	}
	f := new(big.Float).SetFloat64(math.Sqrt(raw))
	f.SetMantExp(f, 64)
	i, _ := f.Int(nil)
	u, err := U128FromBig(i)
	if err != nil {
		return U128{}, fmt.Errorf("clmm: sqrt price of %g: %w", raw, err)
	}
	return u, nil
}
