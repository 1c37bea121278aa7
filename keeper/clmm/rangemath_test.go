package clmm

import "testing"

func TestRangeContains(t *testing.T) {
	r := Range{Lower: -60, Upper: 120}
	tests := []struct {
		tick int32
		want bool
	}{
		{-61, false}, {-60, true}, {0, true}, {119, true}, {120, false}, {500, false},
	}
	for _, tt := range tests {
		if got := r.Contains(tt.tick); got != tt.want {
			t.Errorf("%v.Contains(%d) = %v, want %v", r, tt.tick, got, tt.want)
		}
	}
	pos := Position{Range: r}
	if !pos.InRange(Pool{TickCurrent: -60}) || pos.InRange(Pool{TickCurrent: 120}) {
		t.Error("Position.InRange disagrees with lower <= current < upper")
	}
}

// Range [-100, 100) is 200 ticks wide: each expected distance is
// min(tick + 100, 100 − tick), and the percentage that over 200.
func TestRangeDistance(t *testing.T) {
	r := Range{Lower: -100, Upper: 100}
	tests := []struct {
		tick int32
		want Distance
	}{
		{0, Distance{InRange: true, Edge: EdgeLower, Ticks: 100, Percent: 50}},
		{1, Distance{InRange: true, Edge: EdgeUpper, Ticks: 99, Percent: 49.5}},
		{90, Distance{InRange: true, Edge: EdgeUpper, Ticks: 10, Percent: 5}},
		{-90, Distance{InRange: true, Edge: EdgeLower, Ticks: 10, Percent: 5}},
		{-100, Distance{InRange: true, Edge: EdgeLower, Ticks: 0, Percent: 0}},
		{99, Distance{InRange: true, Edge: EdgeUpper, Ticks: 1, Percent: 0.5}},
		{100, Distance{InRange: false, Edge: EdgeUpper, Ticks: 0, Percent: 0}},
		{120, Distance{InRange: false, Edge: EdgeUpper, Ticks: -20, Percent: -10}},
		{-150, Distance{InRange: false, Edge: EdgeLower, Ticks: -50, Percent: -25}},
	}
	for _, tt := range tests {
		if got := r.Distance(tt.tick); got != tt.want {
			t.Errorf("%v.Distance(%d) = %+v, want %+v", r, tt.tick, got, tt.want)
		}
	}
	if got := (Range{Lower: MinTick, Upper: MaxTick}).Distance(MaxTick - 1); got.Ticks != 1 || got.Edge != EdgeUpper {
		t.Errorf("full-width distance = %+v", got)
	}
	if EdgeLower.String() != "lower" || EdgeUpper.String() != "upper" {
		t.Error("Edge.String")
	}
}

func TestRangeValidateAndAligned(t *testing.T) {
	if err := (Range{Lower: -64, Upper: 64}).Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	for _, r := range []Range{{0, 0}, {10, -10}, {MinTick - 1, 0}, {0, MaxTick + 1}} {
		if err := r.Validate(); err == nil {
			t.Errorf("%v.Validate() = nil, want an error", r)
		}
	}
	tests := []struct {
		r       Range
		spacing uint16
		want    bool
	}{
		{Range{-128, 64}, 64, true},
		{Range{-120, 60}, 64, false},
		{Range{-120, 60}, 60, true},
		{Range{-120, 61}, 60, false},
		{Range{-120, 60}, 0, false},
	}
	for _, tt := range tests {
		if got := tt.r.Aligned(tt.spacing); got != tt.want {
			t.Errorf("%v.Aligned(%d) = %v, want %v", tt.r, tt.spacing, got, tt.want)
		}
	}
}

// UsableTicks is ±floor(443636 / spacing) × spacing.
func TestUsableTicks(t *testing.T) {
	tests := []struct {
		spacing uint16
		want    int32
	}{
		{1, 443636}, {10, 443630}, {60, 443580}, {64, 443584}, {128, 443520}, {32768, 425984},
	}
	for _, tt := range tests {
		got, err := UsableTicks(tt.spacing)
		if err != nil || got != (Range{Lower: -tt.want, Upper: tt.want}) {
			t.Errorf("UsableTicks(%d) = %v, %v; want ±%d", tt.spacing, got, err, tt.want)
		}
	}
	if _, err := UsableTicks(0); err == nil {
		t.Error("UsableTicks(0) succeeded")
	}
}
