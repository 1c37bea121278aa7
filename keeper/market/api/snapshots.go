package api

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DefaultSnapshotWalks is how many walks of E3 LoanPages makes in all, by default, before it gives up
// on a walk whose pages keep carrying different snapshotTs values.
const DefaultSnapshotWalks = 3

// ErrMixedSnapshots matches (with errors.Is) a *MixedSnapshotsError.
var ErrMixedSnapshots = errors.New("market: pages of one walk carry different snapshotTs values")

// MixedSnapshotsError reports a walk of a paginated listing whose pages kept carrying different
// oracle snapshots (snapshotTs) however often it was read: its USD figures are not one observation,
// so nothing should be decided from it.
type MixedSnapshotsError struct {
	// Endpoint is the endpoint name, e.g. "loans_info".
	Endpoint string
	// Walks is how many whole walks were read.
	Walks int
	// SnapshotTs lists the distinct snapshotTs values of the last walk, in the order its pages carried them.
	SnapshotTs []float64
}

// Error names the endpoint, the number of walks and the differing snapshotTs values.
func (e *MixedSnapshotsError) Error() string {
	ts := make([]string, len(e.SnapshotTs))
	for i, t := range e.SnapshotTs {
		ts[i] = strconv.FormatFloat(t, 'f', -1, 64)
	}
	return fmt.Sprintf("market: %s: pages carry different snapshotTs values (%s) in each of %d walks",
		e.Endpoint, strings.Join(ts, ", "), e.Walks)
}

// Unwrap returns ErrMixedSnapshots.
func (e *MixedSnapshotsError) Unwrap() error { return ErrMixedSnapshots }
