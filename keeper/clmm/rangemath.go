package clmm

import "fmt"

// Range is a tick range. It is half-open, as on chain: a tick t lies in it
// when Lower <= t < Upper.
type Range struct {
	// Lower is the lowest tick in the range.
	Lower int32
	// Upper is the first tick above the range.
	Upper int32
}

// Width returns Upper − Lower in ticks.
func (r Range) Width() int64 { return int64(r.Upper) - int64(r.Lower) }

// Contains reports whether Lower <= tick < Upper.
func (r Range) Contains(tick int32) bool { return r.Lower <= tick && tick < r.Upper }

// Aligned reports whether both bounds are multiples of spacing (false for a
// zero spacing).
func (r Range) Aligned(spacing uint16) bool {
	s := int64(spacing)
	return s > 0 && int64(r.Lower)%s == 0 && int64(r.Upper)%s == 0
}

// Validate checks Lower < Upper and that both lie in [MinTick, MaxTick].
func (r Range) Validate() error {
	if r.Lower >= r.Upper {
		return fmt.Errorf("tick range [%d, %d) is empty", r.Lower, r.Upper)
	}
	if r.Lower < MinTick || r.Upper > MaxTick {
		return fmt.Errorf("tick range [%d, %d) is outside [%d, %d]", r.Lower, r.Upper, MinTick, MaxTick)
	}
	return nil
}

// String returns "[lower, upper)".
func (r Range) String() string { return fmt.Sprintf("[%d, %d)", r.Lower, r.Upper) }

// Edge names a bound of a Range.
type Edge int

// The two edges of a Range.
const (
	// EdgeLower is the lower bound.
	EdgeLower Edge = iota
	// EdgeUpper is the upper bound.
	EdgeUpper
)

// String returns "lower" or "upper".
func (e Edge) String() string {
	if e == EdgeUpper {
		return "upper"
	}
	return "lower"
}

// Distance is how far a tick lies from the nearer edge of a Range.
type Distance struct {
	// InRange reports whether the tick lies in the range.
	InRange bool
	// Edge is the nearer edge; EdgeLower on a tie.
	Edge Edge
	// Ticks is min(tick − Lower, Upper − tick): positive inside the range,
	// negative outside it (how far past the edge), and zero on an edge.
	// Zero means in range at Lower but out of range at Upper (see InRange).
	Ticks int64
	// Percent is Ticks as a percentage of the range width: at most 50
	// inside the range.
	Percent float64
}

// Distance returns how far tick lies from the nearer edge of r. The range
// must not be empty (see Validate); an empty one reports Percent as 0.
func (r Range) Distance(tick int32) Distance {
	below := int64(tick) - int64(r.Lower)
	above := int64(r.Upper) - int64(tick)
	d := Distance{InRange: r.Contains(tick), Edge: EdgeLower, Ticks: below}
	if above < below {
		d.Edge, d.Ticks = EdgeUpper, above
	}
	if w := r.Width(); w > 0 {
		d.Percent = float64(d.Ticks) / float64(w) * 100
	}
	return d
}

// UsableTicks returns the lowest and highest ticks aligned to spacing within
// [MinTick, MaxTick]: the widest range a position can have.
func UsableTicks(spacing uint16) (Range, error) {
	if spacing == 0 {
		return Range{}, fmt.Errorf("clmm: tick spacing is zero")
	}
	s := int32(spacing)
	m := MaxTick / s * s
	return Range{Lower: -m, Upper: m}, nil
}
