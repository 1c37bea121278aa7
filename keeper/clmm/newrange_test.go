package clmm

import (
	"strings"
	"testing"
)

// Each expected range is worked out by hand: round the width up to n
// spacings, list the aligned ranges of that width holding current, and take
// the one whose midpoint is nearest current (the lower one on a tie).
func TestCenteredRange(t *testing.T) {
	tests := []struct {
		name    string
		current int32
		spacing uint16
		width   int64
		want    Range
	}{
		{"spacing 1 even width", 0, 1, 10, Range{-5, 5}},
		{"spacing 1 odd width ties go below", 0, 1, 11, Range{-6, 5}},
		{"spacing 1 negative tick", -7, 1, 4, Range{-9, -5}},
		{"spacing 10 width below one spacing", -1, 10, 1, Range{-10, 0}},
		{"spacing 10 width rounds up", 25, 10, 41, Range{0, 50}}, // 5 spacings; midpoints 25 for [0,50)
		{"spacing 60 positive", 100, 60, 600, Range{-180, 420}},  // cell 60, midpoint 120 (off 20) beats 60 (off 40)
		{"spacing 60 negative", -100, 60, 600, Range{-420, 180}}, // cell -120, midpoint -120 (off 20) beats -60 (off 40)
		{"spacing 60 on an aligned tick", -600, 60, 120, Range{-660, -540}},
		{"spacing 64 near cell start", 5, 64, 100, Range{-64, 64}},  // 2 spacings; midpoint 0 (off 5) beats 64 (off 59)
		{"spacing 64 past cell middle", 40, 64, 128, Range{0, 128}}, // midpoint 64 (off 24) beats 0 (off 40)
		{"spacing 64 exact half is a tie", 32, 64, 128, Range{-64, 64}},
		{"spacing 128 negative just below cell", -129, 128, 256, Range{-256, 0}},
		{"spacing 128 one spacing", -1, 128, 128, Range{-128, 0}},
		{"spacing 128 zero tick one spacing", 0, 128, 1, Range{0, 128}},
		{"near max tick shifts down", 443500, 60, 600, Range{442980, 443580}},
		{"near min tick shifts up", -443600, 1, 100, Range{-443636, -443536}},
		{"at min tick spacing 64", MinTick, 64, 64, Range{-443584, -443520}},
		{"wider than usable is full range", 0, 128, 10_000_000, Range{-443520, 443520}},
		{"exactly usable span is full range", 12345, 10, 887260, Range{-443630, 443630}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CenteredRange(tt.current, tt.spacing, tt.width)
			if err != nil {
				t.Fatalf("CenteredRange: %v", err)
			}
			if got != tt.want {
				t.Fatalf("CenteredRange(%d, %d, %d) = %v, want %v", tt.current, tt.spacing, tt.width, got, tt.want)
			}
		})
	}
}

// Against a brute-force search over every aligned candidate within the
// usable ticks: the result is aligned, holds current, is the smallest whole
// number of spacings at least width wide, and no candidate has a nearer
// midpoint (ties: the lower one).
func TestCenteredRangeBruteForce(t *testing.T) {
	currents := []int32{-443000, -100000, -12345, -129, -128, -64, -61, -60, -1, 0, 1, 31, 32, 59, 60, 63, 64, 127, 12345, 443000}
	for _, s := range []uint16{1, 10, 60, 64, 128} {
		for _, current := range currents {
			for _, width := range []int64{1, 2, 63, 64, 65, 127, 200, 1000, 4001} {
				got, err := CenteredRange(current, s, width)
				if err != nil {
					t.Fatalf("CenteredRange(%d, %d, %d): %v", current, s, width, err)
				}
				if want := bruteCenteredRange(current, int64(s), width); got != want {
					t.Fatalf("CenteredRange(%d, %d, %d) = %v, brute force %v", current, s, width, got, want)
				}
				if !got.Aligned(s) || !got.Contains(current) || got.Validate() != nil {
					t.Fatalf("CenteredRange(%d, %d, %d) = %v: not aligned, valid and holding current", current, s, width, got)
				}
			}
		}
	}
}

func bruteCenteredRange(current int32, s, width int64) Range {
	n := (width + s - 1) / s
	w := n * s
	var best Range
	bestOff := int64(-1)
	usable, _ := UsableTicks(uint16(s))
	for lower := floorDiv(int64(current), s)*s - w; lower <= int64(current); lower += s {
		inside := lower >= int64(usable.Lower) && lower+w <= int64(usable.Upper)
		if !inside || !(lower <= int64(current) && int64(current) < lower+w) {
			continue
		}
		off := 2*int64(current) - (2*lower + w) // twice current − midpoint
		if off < 0 {
			off = -off
		}
		if bestOff < 0 || off < bestOff { // ascending lower: a tie keeps the lower range
			best, bestOff = Range{Lower: int32(lower), Upper: int32(lower + w)}, off
		}
	}
	return best
}

func TestCenteredRangeErrors(t *testing.T) {
	tests := []struct {
		current int32
		spacing uint16
		width   int64
		want    string
	}{
		{0, 0, 100, "tick spacing is zero"},
		{0, 10, 0, "range width 0 ticks is below 1"},
		{0, 10, -5, "range width -5 ticks is below 1"},
		{MaxTick + 1, 10, 100, "current tick 443637 is outside [-443636, 443636]"},
		{MinTick - 1, 10, 100, "current tick -443637 is outside"},
	}
	for _, tt := range tests {
		if _, err := CenteredRange(tt.current, tt.spacing, tt.width); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CenteredRange(%d, %d, %d) error = %v, want %q", tt.current, tt.spacing, tt.width, err, tt.want)
		}
	}
}

// Expected widths are ceil(ln((1 + h) / (1 − h)) / ln 1.0001) with h =
// pct/200, worked out independently: 10 % → ln(1.05/0.95) / ln 1.0001 =
// 1000.885 → 1001; 1 % → 100.006 → 101; 50 % → 5108.51 → 5109; 100 % →
// 10986.67 → 10987; 0.01 % → 1.00005 → 2.
func TestWidthTicksForPercent(t *testing.T) {
	tests := []struct {
		pct  float64
		want int64
	}{
		{10, 1001},
		{1, 101},
		{50, 5109},
		{100, 10987},
		{0.01, 2},
		{199.99999999, 244134}, // ln(2/5e-11) / ln 1.0001 = 244133.66
	}
	for _, tt := range tests {
		if got, err := WidthTicksForPercent(tt.pct); err != nil || got != tt.want {
			t.Errorf("WidthTicksForPercent(%v) = %d, %v; want %d", tt.pct, got, err, tt.want)
		}
	}
	for _, pct := range []float64{0, -1, 200, 250} {
		if _, err := WidthTicksForPercent(pct); err == nil || !strings.Contains(err.Error(), "is not in (0, 200)") {
			t.Errorf("WidthTicksForPercent(%v) error = %v", pct, err)
		}
	}
}

// 10 % is 1001 ticks: 17 spacings of 60 (1020 ticks) around tick 100, in
// cell 60 at f = 40: k = round(8.5 − 0.67) = 8, lower = 60 − 480 = −420.
func TestCenteredRangePercent(t *testing.T) {
	got, err := CenteredRangePercent(100, 60, 10)
	if err != nil || got != (Range{Lower: -420, Upper: 600}) {
		t.Fatalf("CenteredRangePercent(100, 60, 10) = %v, %v; want [-420, 600)", got, err)
	}
	lowP, highP := PriceAtTick(got.Lower)/PriceAtTick(100), PriceAtTick(got.Upper)/PriceAtTick(100)
	if lowP > 0.95 || highP < 1.05 {
		t.Errorf("range spans %.4f..%.4f of the price, want at least 0.95..1.05", lowP, highP)
	}
	if _, err := CenteredRangePercent(100, 60, 0); err == nil {
		t.Error("CenteredRangePercent with 0 % succeeded")
	}
}
