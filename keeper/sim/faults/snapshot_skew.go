package faults

import "fmt"

// SnapshotSkew is a way the market's E3 answers can disagree on their oracle snapshot: in a skewed
// answer for a page after the first, snapshotTs is one second later than the snapshot its USD figures
// were computed from, so a walk of pages carries different snapshotTs values, as a service whose
// snapshot moved between the pages of one walk would answer.
type SnapshotSkew int

// The snapshot skews.
const (
	// SnapshotSkewNone answers every page with its own snapshot's time.
	SnapshotSkewNone SnapshotSkew = iota
	// SnapshotSkewOnce skews the first answer for a page after page 0, and no other.
	SnapshotSkewOnce
	// SnapshotSkewAlways skews every answer for a page after page 0.
	SnapshotSkewAlways
	snapshotSkewCount
)

// snapshotSkewStep is how much later a skewed snapshotTs is, in seconds.
const snapshotSkewStep = 1

// String returns the skew's name.
func (k SnapshotSkew) String() string {
	switch k {
	case SnapshotSkewNone:
		return "none"
	case SnapshotSkewOnce:
		return "once"
	case SnapshotSkewAlways:
		return "always"
	}
	return fmt.Sprintf("snapshot-skew(%d)", int(k))
}

// ParseSnapshotSkew returns the skew named name (as String writes it).
func ParseSnapshotSkew(name string) (SnapshotSkew, error) {
	for k := SnapshotSkewNone; k < snapshotSkewCount; k++ {
		if k.String() == name {
			return k, nil
		}
	}
	return SnapshotSkewNone, fmt.Errorf("unknown snapshot skew %q (one of none, once, always)", name)
}
