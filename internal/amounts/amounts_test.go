package amounts

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		units    uint64
		decimals uint8
		want     string
	}{
		{10_000_000_000, 9, "10"},
		{1_828_019_925, 9, "1.828019925"},
		{412_500_000, 6, "412.5"},
		{60_000_000_000, 6, "60000"},
		{1, 6, "0.000001"},
		{0, 6, "0"},
		{0, 0, "0"},
		{42, 0, "42"},
		{100, 2, "1"},
		{105, 2, "1.05"},
		{math.MaxUint64, 18, "18.446744073709551615"},
		{math.MaxUint64, 0, "18446744073709551615"},
	}
	for _, tc := range tests {
		if got := Format(tc.units, tc.decimals); got != tc.want {
			t.Errorf("Format(%d, %d) = %q, want %q", tc.units, tc.decimals, got, tc.want)
		}
	}
}

func TestSOL(t *testing.T) {
	for lamports, want := range map[uint64]string{10_000: "0.00001 SOL", 1_500_000_000: "1.5 SOL", 0: "0 SOL",
		4_200_000: "0.0042 SOL", 10_000_000_000: "10 SOL"} {
		if got := SOL(lamports); got != want {
			t.Errorf("SOL(%d) = %q, want %q", lamports, got, want)
		}
	}
}
