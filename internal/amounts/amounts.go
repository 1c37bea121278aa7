// Package amounts is how keeper writes a token amount for people, by one rule wherever it shows
// one (reasons, logs, notifications, `keeper wallet`, `history`, reports): the exact value in
// whole tokens, with every significant decimal up to the mint's precision and none beyond it
// (trailing zeros dropped, no decimal point for a whole number), a dot as the decimal point and no
// thousands separator: 10 SOL, 1.828019925 SOL, 412.5 USDC, 0.000001 USDC, 60000 USDC. Nothing
// is rounded, so two amounts of one mint compare as their texts read. An amount whose mint's
// decimals are unknown is written in base units and says so ("412500000 units of EPjF…Dt1v").
package amounts

import (
	"strconv"
	"strings"
)

// Format writes units of a mint with decimals as whole tokens, by the package's rule:
// Format(1_828_019_925, 9) is "1.828019925", Format(10_000_000_000, 9) is "10".
func Format(units uint64, decimals uint8) string {
	s := strconv.FormatUint(units, 10)
	d := int(decimals)
	if d == 0 {
		return s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	whole, frac := s[:len(s)-d], strings.TrimRight(s[len(s)-d:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// LamportsPerSOL is the native mint's scale: SOL has nine decimals.
const LamportsPerSOL = 9

// SOL writes lamports as SOL by the package's rule: SOL(10_000) is "0.00001 SOL".
func SOL(lamports uint64) string { return Format(lamports, LamportsPerSOL) + " SOL" }
