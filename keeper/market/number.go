package market

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// Number is a real value the service may send as a JSON number or as a JSON string, such as
// interestPerSecond, emissionsPerSecond or a loop's wAvgApy. It encodes as a JSON number. null and ""
// leave it unchanged; NaN and infinities are rejected both ways.
type Number float64

// Float64 returns the number as a float64.
func (n Number) Float64() float64 { return float64(n) }

// MarshalJSON encodes the number as a JSON number.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("number: cannot encode NaN or infinity")
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON decodes a JSON number or a string holding a number.
func (n *Number) UnmarshalJSON(b []byte) error {
	return unmarshalScalar(b, n, "number", func(text string) (Number, error) {
		f, err := parseFinite(text)
		if err != nil {
			return 0, fmt.Errorf("number: %w", err)
		}
		return Number(f), nil
	})
}

// parseFinite parses a decimal float and refuses NaN and infinities.
func parseFinite(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a finite number", Echo(s))
	}
	return f, nil
}

// Decimal is a real value kept exactly as the service wrote it, a JSON number or a string holding one,
// for figures that are divided up exactly, such as E7's deposit-seconds. The zero Decimal is 0. null
// and "" leave it unchanged; NaN, infinities and anything that is not a decimal number are refused.
type Decimal struct {
	text string // a decimal literal big.Rat accepts; "" is 0
}

// DecimalOf returns the Decimal of f (for the simulator and tests).
func DecimalOf(f float64) Decimal {
	return Decimal{text: strconv.FormatFloat(f, 'g', -1, 64)}
}

// ParseDecimal reads a decimal number written as JSON writes numbers, such as "86400.5" or "1.2e9".
func ParseDecimal(s string) (Decimal, error) {
	if _, ok := new(big.Rat).SetString(s); !ok || !isNumberLiteral(s) || !json.Valid([]byte(s)) {
		return Decimal{}, fmt.Errorf("%q is not a decimal number", Echo(s))
	}
	return Decimal{text: s}, nil
}

// isNumberLiteral reports whether s is written as a number (sign, digits, point, exponent): big.Rat
// also takes fractions such as "1/3", which no JSON number is.
func isNumberLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return s != ""
}

// Rat returns the exact value.
func (d Decimal) Rat() *big.Rat {
	r := new(big.Rat)
	if d.text != "" {
		r.SetString(d.text)
	}
	return r
}

// Float64 returns the nearest float64.
func (d Decimal) Float64() float64 {
	f, _ := d.Rat().Float64()
	return f
}

// String returns the literal as written, or "0".
func (d Decimal) String() string {
	if d.text == "" {
		return "0"
	}
	return d.text
}

// MarshalJSON encodes the value as the JSON number it was written as.
func (d Decimal) MarshalJSON() ([]byte, error) {
	return []byte(d.String()), nil
}

// UnmarshalJSON decodes a JSON number or a string holding a number.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	return unmarshalScalar(b, d, "decimal", func(text string) (Decimal, error) {
		v, err := ParseDecimal(text)
		if err != nil {
			return Decimal{}, fmt.Errorf("decimal: %w", err)
		}
		return v, nil
	})
}
