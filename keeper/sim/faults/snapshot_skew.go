package faults

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

// snapshotSkewNames are the skews' names, by value.
var snapshotSkewNames = []string{SnapshotSkewNone: "none", SnapshotSkewOnce: "once", SnapshotSkewAlways: "always"}

// String returns the skew's name.
func (k SnapshotSkew) String() string { return enumName(k, snapshotSkewNames, "snapshot-skew") }

// ParseSnapshotSkew returns the skew named name (as String writes it).
func ParseSnapshotSkew(name string) (SnapshotSkew, error) {
	return parseEnum[SnapshotSkew](name, snapshotSkewNames, "snapshot skew")
}
