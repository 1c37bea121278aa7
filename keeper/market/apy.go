package market

import (
	"fmt"
	"strconv"
	"strings"
)

// ExternalAPY is externalYieldInfo.apy held as a fraction (0.05 = 5 %). The spec says it is a fraction;
// one integration reads it as a centi-basis-point string. Decoding tells them apart by form: a JSON
// number, or a string with a decimal point or exponent ("0.05", "5e-2"), is a fraction; a string of
// digits only ("50000") is centi-basis points and is divided by 1,000,000. It encodes as a JSON number.
type ExternalAPY float64

// Fraction returns the APY as a fraction.
func (a ExternalAPY) Fraction() float64 { return float64(a) }

// MarshalJSON encodes the APY as a JSON number (a fraction).
func (a ExternalAPY) MarshalJSON() ([]byte, error) { return Number(a).MarshalJSON() }

// UnmarshalJSON decodes a fraction or a centi-basis-point string.
func (a *ExternalAPY) UnmarshalJSON(b []byte) error {
	return unmarshalScalar(b, a, "external apy", func(text string) (ExternalAPY, error) {
		quoted := strings.TrimSpace(string(b))[0] == '"' // b is not blank once it holds a scalar
		return parseExternalAPY(text, quoted)
	})
}

// parseExternalAPY parses a fraction, or centi-basis points when the text is a quoted run of digits.
func parseExternalAPY(text string, quoted bool) (ExternalAPY, error) {
	text = strings.TrimSpace(text)
	if quoted && isDigits(text) {
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("external apy: %q is out of range", Echo(text))
		}
		return ExternalAPY(CBPS(v).Fraction()), nil
	}
	f, err := parseFinite(text)
	if err != nil {
		return 0, fmt.Errorf("external apy: %w", err)
	}
	return ExternalAPY(f), nil
}

// isDigits reports whether s is a non-empty run of ASCII digits, optionally signed.
func isDigits(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
