// Package units reads and converts the simulator's amounts and durations:
// token amounts in base units and whole tokens, time offsets and strategy
// terms as scenario files write them.
package units

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/lazy"
)

// ParseUnits converts a decimal amount in whole tokens ("12.5") to base units of a mint with the
// given decimals, exactly. An empty string is zero.
func ParseUnits(s string, decimals uint8) (uint64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if s == "" {
		return 0, nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/eE") {
		return 0, fmt.Errorf("%q is not a decimal amount", s)
	}
	if r.Sign() < 0 {
		return 0, fmt.Errorf("amount %q is negative", s)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	if !r.IsInt() {
		return 0, fmt.Errorf("amount %q has more than %d decimals", s, decimals)
	}
	n := r.Num()
	if !n.IsUint64() {
		return 0, fmt.Errorf("amount %q is too large", s)
	}
	return n.Uint64(), nil
}

// ParseInteger parses a non-negative integer such as a CLMM liquidity. An empty string is zero.
func ParseInteger(s string) (uint64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a non-negative integer below 2^64", s)
	}
	return v, nil
}

var daysRE = &lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`^([+-]?)(\d+)d(.*)$`) }}

// ParseOffset parses a time offset: a Go duration ("90s", "-1h30m") optionally starting with whole
// days ("-10d", "1d12h").
func ParseOffset(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	m := daysRE.Get().FindStringSubmatch(s)
	if m == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a time offset (examples: 30s, -1h, -10d, 1d12h)", s)
		}
		return d, nil
	}
	days, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time offset: %w", s, err)
	}
	d := time.Duration(days) * 24 * time.Hour
	if m[3] != "" {
		rest, err := time.ParseDuration(m[3])
		if err != nil || strings.HasPrefix(m[3], "-") || strings.HasPrefix(m[3], "+") {
			return 0, fmt.Errorf("%q is not a time offset (examples: 30s, -1h, -10d, 1d12h)", s)
		}
		d += rest
	}
	if m[1] == "-" {
		d = -d
	}
	return d, nil
}

var termRE = &lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)(m|d|w|mo|y)$`) }}

// ParseTerm parses a loan term such as "7d" (days), "2w", "3mo", "90m" (minutes) or "1y".
func ParseTerm(s string) (instr.Term, error) {
	m := termRE.Get().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return instr.Term{}, fmt.Errorf("%q is not a loan term (examples: 90m, 7d, 2w, 3mo, 1y)", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 32)
	if err != nil {
		return instr.Term{}, fmt.Errorf("%q is not a loan term: %w", s, err)
	}
	types := map[string]int32{
		"d": instr.TermDays, "w": instr.TermWeeks, "mo": instr.TermMonths,
		"m": instr.TermMinutes, "y": instr.TermYears,
	}
	return instr.Term{DurationType: types[m[2]], Duration: int32(n)}, nil
}

// TermSeconds returns the length of a loan term in seconds (months are 30 days, years 365 days).
func TermSeconds(d instr.Term) (int64, error) {
	unit := map[int32]int64{
		instr.TermDays: 86_400, instr.TermWeeks: 7 * 86_400, instr.TermMonths: 30 * 86_400,
		instr.TermMinutes: 60, instr.TermYears: 365 * 86_400,
	}[d.DurationType]
	if unit == 0 {
		return 0, fmt.Errorf("unknown duration type %d", d.DurationType)
	}
	if d.Duration < 0 {
		return 0, errors.New("negative duration")
	}
	return unit * int64(d.Duration), nil
}

// WholeTokens converts base units to whole tokens.
func WholeTokens(amount uint64, decimals uint8) float64 {
	return float64(amount) / math.Pow10(int(decimals))
}

// Pow10 returns 10^d.
func Pow10(d uint8) float64 { return math.Pow10(int(d)) }

// ParsePercent parses an allocation percentage in [0, 100].
func ParsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
		return 0, fmt.Errorf("%q is not a percentage in [0, 100]", s)
	}
	return v, nil
}
