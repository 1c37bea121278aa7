package policies

import (
	"math"
	"testing"
)

func TestFormatAmount(t *testing.T) {
	toks := map[string]Token{"u": {Symbol: "USDC", Decimals: 6}, "s": {Symbol: "SOL", Decimals: 9}, "n": {Decimals: 0}}
	tests := []struct {
		units uint64
		mint  string
		want  string
	}{
		{412_500_000, "u", "412.5 USDC"},
		{1, "u", "0.000001 USDC"},
		{0, "u", "0 USDC"},
		{1_234_567_891, "s", "1.234567891 SOL"},
		{2_000_000_000, "s", "2 SOL"},
		{10_000_000_000, "s", "10 SOL"}, // one rule: not "10.00 SOL" beside "1.234567891 SOL"
		{42, "n", "42 n"},
		{42, "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "42 units of EPjF…Dt1v"},
	}
	for _, tc := range tests {
		if got := FormatAmount(tc.units, tc.mint, toks); got != tc.want {
			t.Errorf("FormatAmount(%d, %s) = %q, want %q", tc.units, tc.mint, got, tc.want)
		}
	}
}

func TestFormatRatio(t *testing.T) {
	for in, want := range map[float64]string{0.08: "0.08", 0.0625: "0.0625", 0.123456: "0.1235", 1: "1.00", 0.1: "0.10"} {
		if got := formatRatio(in); got != want {
			t.Errorf("formatRatio(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestCeilUnits(t *testing.T) {
	tests := []struct {
		in   float64
		want uint64
	}{
		{0, 0}, {-1, 0}, {math.NaN(), 0}, {1, 1}, {1.2, 2},
		{1_500_000_000.0000002, 1_500_000_000}, // float noise is not a unit
		{1_500_000_000.5, 1_500_000_001},
		{1e30, math.MaxUint64},
	}
	for _, tc := range tests {
		if got := ceilUnits(tc.in); got != tc.want {
			t.Errorf("ceilUnits(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestFormatSOL(t *testing.T) {
	for lamports, want := range map[uint64]string{10_000: "0.00001 SOL", 1_500_000_000: "1.5 SOL", 0: "0 SOL", 4_200_000: "0.0042 SOL"} {
		if got := FormatSOL(lamports); got != want {
			t.Errorf("FormatSOL(%d) = %q, want %q", lamports, got, want)
		}
	}
}
