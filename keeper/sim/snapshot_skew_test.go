package sim

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/faults"
)

// pageTs returns the snapshotTs of E3 page page of size 2.
func pageTs(t *testing.T, e *env, page int) float64 {
	t.Helper()
	p, err := e.market.LoansInfo(e.ctx, market.LoansQuery{Page: ptr(page), PageSize: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	return p.SnapshotTs
}

// TestSnapshotSkew: with mixed-snapshots=once the first answer for a page
// after page 0 carries a snapshotTs one second late and later answers are
// honest; with always every such answer does; page 0 never does. Set
// faults start over.
func TestSnapshotSkew(t *testing.T) {
	e := newEnv(t, Options{Faults: faults.Faults{Market: faults.Market{SnapshotSkew: faults.SnapshotSkewOnce}}})
	honest := float64(testStart.Unix())
	got := []float64{pageTs(t, e, 0), pageTs(t, e, 1), pageTs(t, e, 0), pageTs(t, e, 1), pageTs(t, e, 2)}
	if want := []float64{honest, honest + 1, honest, honest, honest}; !reflect.DeepEqual(got, want) {
		t.Errorf("once: snapshotTs of pages 0 1 0 1 2 = %v, want %v", got, want)
	}
	if err := e.sim.Faults().Set(faults.Faults{Market: faults.Market{SnapshotSkew: faults.SnapshotSkewAlways}}); err != nil {
		t.Fatal(err)
	}
	got = []float64{pageTs(t, e, 0), pageTs(t, e, 1), pageTs(t, e, 1), pageTs(t, e, 3)}
	if want := []float64{honest, honest + 1, honest + 1, honest + 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("always: snapshotTs of pages 0 1 1 3 = %v, want %v", got, want)
	}
	if err := e.sim.Faults().Set(faults.Faults{Market: faults.Market{SnapshotSkew: faults.SnapshotSkewOnce}}); err != nil {
		t.Fatal(err)
	}
	if ts := pageTs(t, e, 1); ts != honest+1 {
		t.Errorf("once again after SetFaults: snapshotTs %v, want %v", ts, honest+1)
	}
}

// allLoans reads every loan page by page through the client's LoanPages
// into one snapshot, afresh on each walk, as keeper's whole reads do.
func (e *env) allLoans(q market.LoansQuery) (*market.LoansSnapshot, error) {
	var snap *market.LoansSnapshot
	var seen map[string]bool
	last := 0
	err := e.market.LoanPages(e.ctx, q, func(walk int, p *market.LoansPage) error {
		if walk != last {
			snap, seen, last = &market.LoansSnapshot{}, map[string]bool{}, walk
		}
		snap.AddPage(p, seen)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// TestSnapshotSkewWalks: a client walking the simulator's loans reads a
// walk skewed once again and gets one snapshot; a walk skewed always is
// refused with ErrMixedSnapshots.
func TestSnapshotSkewWalks(t *testing.T) {
	e := newEnv(t, Options{Faults: faults.Faults{Market: faults.Market{SnapshotSkew: faults.SnapshotSkewOnce}}})
	snap, err := e.allLoans(market.LoansQuery{PageSize: ptr(2)})
	if err != nil || snap.MixedSnapshots || len(snap.Items) != 8 {
		t.Fatalf("once: allLoans = %+v, %v; want the 8 loans in one snapshot", snap, err)
	}
	if err := e.sim.Faults().Set(faults.Faults{Market: faults.Market{SnapshotSkew: faults.SnapshotSkewAlways}}); err != nil {
		t.Fatal(err)
	}
	_, err = e.allLoans(market.LoansQuery{PageSize: ptr(2)})
	if !errors.Is(err, api.ErrMixedSnapshots) {
		t.Errorf("always: allLoans error %v, want ErrMixedSnapshots", err)
	}
}

// TestSnapshotTsIsThePinnedSnapshot: the market pins an oracle snapshot every SnapshotRefresh from its
// start and a new one when an event moves a price (the default scenario's oracle event at 10 s,
// applied when the first request after it arrives), so honest pages read within one snapshot agree
// however many seconds they straddle.
func TestSnapshotTsIsThePinnedSnapshot(t *testing.T) {
	e := newEnv(t, Options{})
	start := float64(testStart.Unix())
	var got []float64
	for _, d := range []time.Duration{0, 5 * time.Second, 6 * time.Second, 4 * time.Second, 6 * time.Second} {
		e.advance(t, d)
		got = append(got, pageTs(t, e, 1))
	}
	// At 0 s and 5 s the start's snapshot; at 11 s the price moved (applied at 11 s); at 15 s still
	// that one; at 21 s the refresh at 20 s.
	if want := []float64{start, start, start + 11, start + 11, start + 20}; !reflect.DeepEqual(got, want) {
		t.Errorf("snapshotTs at 0, 5, 11, 15 and 21 s = %v, want %v", got, want)
	}
}
