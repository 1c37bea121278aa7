package feemarket

import "testing"

func TestQuantile(t *testing.T) {
	for _, tt := range []struct {
		points []uint64
		u      float64
		want   uint64
	}{
		{[]uint64{7}, 0.9, 7},
		{[]uint64{0, 100}, 0.25, 25},
		{[]uint64{0, 100, 1000}, 0.75, 550},
		{[]uint64{0, 100, 1000}, 0.999999, 1000},
	} {
		if got := quantile(tt.points, tt.u); got != tt.want {
			t.Errorf("quantile(%v, %v) = %d, want %d", tt.points, tt.u, got, tt.want)
		}
	}
}
