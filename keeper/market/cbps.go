package market

import (
	"fmt"
	"math"
	"strconv"
)

// CBPS is a ratio in the service's centi-basis points: 1,000,000 = 100 %. Quote and ledger apy, ltv,
// lqt, liquidationThreshold, ltvRatios, lqtRatios and weights use it (market-facts.md). It decodes from
// a JSON number or a string holding an integer and encodes as a JSON number.
type CBPS int64

// CBPSOne is 100 % in centi-basis points.
const CBPSOne CBPS = 1_000_000

// CBPSFromFraction converts a fraction (0.085 = 8.5 %) to centi-basis points, rounding to nearest.
func CBPSFromFraction(f float64) CBPS { return CBPS(math.Round(f * float64(CBPSOne))) }

// Fraction returns the ratio as a fraction (100000 → 0.1).
func (c CBPS) Fraction() float64 { return float64(c) / float64(CBPSOne) }

// Decimal returns the value as a decimal string, the form strategy-update maps expect.
func (c CBPS) Decimal() string { return strconv.FormatInt(int64(c), 10) }

// MarshalJSON encodes the value as a JSON number.
func (c CBPS) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, int64(c), 10), nil }

// UnmarshalJSON decodes a JSON number or a string holding an integer.
func (c *CBPS) UnmarshalJSON(b []byte) error { return unmarshalScalar(b, c, "cbps", ParseCBPS) }

// ParseCBPS parses a decimal string of centi-basis points such as "100000". An integral value in
// exponent or decimal-point form is accepted.
func ParseCBPS(s string) (CBPS, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return CBPS(v), nil
	}
	f, err := parseFinite(s)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= math.MaxInt64 {
		return 0, fmt.Errorf("cbps: %q is not an integer", Echo(s))
	}
	return CBPS(f), nil
}
