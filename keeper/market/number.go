package market

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
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
	text, null, err := scalarText(b)
	if err != nil {
		return fmt.Errorf("number: %w", err)
	}
	if null {
		return nil
	}
	f, err := parseFinite(text)
	if err != nil {
		return fmt.Errorf("number: %w", err)
	}
	*n = Number(f)
	return nil
}

// parseFinite parses a decimal float and refuses NaN and infinities.
func parseFinite(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a finite number", Echo(s))
	}
	return f, nil
}
