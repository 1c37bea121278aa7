package policies

import (
	"strconv"
	"strings"
)

// quote returns s in Go double quotes.
func quote(s string) string { return strconv.Quote(s) }

// formatAmount renders units of mint for a reason: "412.50 USDC" when the
// token is known, "412500000 units of EPjF…Dt1v" otherwise.
func formatAmount(units uint64, mint string, tokens map[string]Token) string {
	t, ok := tokens[mint]
	if !ok {
		return strconv.FormatUint(units, 10) + " units of " + shortKey(mint)
	}
	sym := t.Symbol
	if sym == "" {
		sym = shortKey(mint)
	}
	return decimalString(units, t.Decimals) + " " + sym
}

// FormatSOL renders lamports as SOL: 10000 → "0.00001 SOL".
func FormatSOL(lamports uint64) string { return decimalString(lamports, 9) + " SOL" }

// decimalString renders units scaled by 10^-decimals exactly, keeping at
// least two decimals and dropping further trailing zeros.
func decimalString(units uint64, decimals uint8) string {
	s := strconv.FormatUint(units, 10)
	d := int(decimals)
	if d == 0 {
		return s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	whole, frac := s[:len(s)-d], s[len(s)-d:]
	keep := min(2, d)
	frac = frac[:keep] + strings.TrimRight(frac[keep:], "0")
	return whole + "." + frac
}

// shortKey abbreviates a base58 key for messages: "EPjF…Dt1v".
func shortKey(s string) string {
	if len(s) <= 12 {
		return s
	}
	return s[:4] + "…" + s[len(s)-4:]
}

// formatRatio renders a health or ratio with four decimals, trailing zeros
// dropped down to two: 0.08 → "0.08", 0.123456 → "0.1235".
func formatRatio(f float64) string {
	s := strconv.FormatFloat(f, 'f', 4, 64)
	for strings.HasSuffix(s, "0") && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return s
}
