package clmm

import (
	"fmt"
	"math"
)

// CenteredRange returns a range of about width ticks around current, aligned
// to spacing, for a new position. The rules:
//
//   - The width is rounded up to a whole number of spacings, and is at least
//     one spacing: the range is never narrower than asked.
//   - Among the aligned ranges of that width that contain current, it picks
//     the one whose midpoint is nearest to current; when two are equally
//     near, the lower one (the extra half spacing goes below).
//   - The range stays within the usable ticks of [UsableTicks]: near a bound
//     it is shifted inwards keeping its width, and a width at or beyond the
//     usable span gives the full usable range. Only a current tick below the
//     lowest usable tick, or at or above the highest (all within one spacing
//     of ±443636), leaves the result not containing current.
//
// It fails for a zero spacing, a width below one, or a current tick outside
// [MinTick, MaxTick].
func CenteredRange(current int32, spacing uint16, width int64) (Range, error) {
	usable, err := UsableTicks(spacing)
	if err != nil {
		return Range{}, err
	}
	if width < 1 {
		return Range{}, fmt.Errorf("clmm: range width %d ticks is below 1", width)
	}
	if current < MinTick || current > MaxTick {
		return Range{}, fmt.Errorf("clmm: current tick %d is outside [%d, %d]", current, MinTick, MaxTick)
	}
	s, lo, hi := int64(spacing), int64(usable.Lower), int64(usable.Upper)
	n := max((width+s-1)/s, 1) // spacings in the range
	if n*s >= hi-lo {
		return usable, nil
	}
	cell := floorDiv(int64(current), s) * s // aligned tick at or below current
	f := int64(current) - cell              // 0 <= f < s
	// Shift k spacings down from cell: k = round(n/2 − f/s), halves up.
	k := min(max(floorDiv(n*s-2*f+s, 2*s), 0), n-1)
	lower := cell - k*s
	lower = min(max(lower, lo), hi-n*s)
	return Range{Lower: int32(lower), Upper: int32(lower + n*s)}, nil
}

// WidthTicksForPercent returns the width in ticks of a range spanning pct
// percent of the current price in total, from price × (1 − pct/200) to price
// × (1 + pct/200): ceil(ln((1 + h) / (1 − h)) / ln(1.0001)) with h = pct/200.
// pct must lie in (0, 200).
func WidthTicksForPercent(pct float64) (int64, error) {
	if !(pct > 0 && pct < 200) {
		return 0, fmt.Errorf("clmm: range width %v%% is not in (0, 200)", pct)
	}
	h := pct / 200
	// Below 200 % the ratio is at most about 4e16, so the width stays under
	// 400k ticks: finite and well inside int64.
	return int64(math.Ceil(math.Log((1+h)/(1-h)) / logTickBase)), nil
}

// CenteredRangePercent is [CenteredRange] with the width given as a
// percentage of the current price (see [WidthTicksForPercent]).
func CenteredRangePercent(current int32, spacing uint16, pct float64) (Range, error) {
	width, err := WidthTicksForPercent(pct)
	if err != nil {
		return Range{}, err
	}
	return CenteredRange(current, spacing, width)
}

// floorDiv returns a / b rounded towards negative infinity, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
