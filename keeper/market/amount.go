package market

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Amount is a token amount in the token's smallest unit (lamports, or an SPL token's base units).
// It decodes from a JSON number or from a JSON string holding an integer, because the service sends
// both (vault records carry strings), and always encodes as a JSON number. null and "" leave it
// unchanged. Negative, fractional and out-of-range values are errors.
type Amount uint64

// Uint64 returns the amount as a uint64.
func (a Amount) Uint64() uint64 { return uint64(a) }

// Float64 returns the amount as a float64 (exact up to 2^53).
func (a Amount) Float64() float64 { return float64(a) }

// String returns the amount in decimal.
func (a Amount) String() string { return strconv.FormatUint(uint64(a), 10) }

// MarshalJSON encodes the amount as a JSON number.
func (a Amount) MarshalJSON() ([]byte, error) {
	return strconv.AppendUint(nil, uint64(a), 10), nil
}

// UnmarshalJSON decodes a JSON number or a string holding an integer.
func (a *Amount) UnmarshalJSON(b []byte) error { return unmarshalScalar(b, a, "amount", ParseAmount) }

// ParseAmount parses a decimal integer amount. It also accepts an integral number in exponent or
// decimal-point form ("1e6", "5.0") when it fits in a uint64.
func ParseAmount(s string) (Amount, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return Amount(v), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return 0, fmt.Errorf("amount: %q is not an integer", Echo(s))
	case f < 0:
		return 0, fmt.Errorf("amount: %q is negative", Echo(s))
	case f != math.Trunc(f):
		return 0, fmt.Errorf("amount: %q is not an integer", Echo(s))
	case f >= math.MaxUint64:
		return 0, fmt.Errorf("amount: %q overflows 64 bits", Echo(s))
	}
	return Amount(f), nil
}
