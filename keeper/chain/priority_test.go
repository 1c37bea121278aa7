package chain_test

import (
	"testing"

	"github.com/keeper-project/keeper/keeper/chain"
)

func TestFeePercentile(t *testing.T) {
	var fees []chain.PrioritizationFee
	for i := range 20 {
		fees = append(fees, chain.PrioritizationFee{Slot: uint64(i), MicroLamports: uint64(20-i) * 1000})
	}
	for _, tc := range []struct {
		pct  int
		want uint64
	}{{75, 15_000}, {50, 10_000}, {100, 20_000}, {1, 1_000}, {0, 1_000}} {
		if got := chain.FeePercentile(fees, tc.pct); got != tc.want {
			t.Errorf("FeePercentile(p%d) = %d, want %d", tc.pct, got, tc.want)
		}
	}
	if got := chain.FeePercentile(nil, 75); got != 0 {
		t.Errorf("FeePercentile of no blocks = %d, want 0", got)
	}
}

func TestUnitLimitFromSimulation(t *testing.T) {
	for _, tc := range []struct {
		consumed, margin uint64
		want             uint32
	}{{50_000, 10, 55_000}, {1_399_000, 10, 1_400_000}, {0, 10, 1}, {33, 10, 37}} {
		if got := chain.UnitLimit(tc.consumed, tc.margin); got != tc.want {
			t.Errorf("UnitLimit(%d, %d%%) = %d, want %d", tc.consumed, tc.margin, got, tc.want)
		}
	}
}
