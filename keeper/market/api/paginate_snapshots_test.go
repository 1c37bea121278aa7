package api

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

// skewedLoans answers a two-page E3 walk whose page 1 carries snapshotTs
// 101 instead of 100 in the walks mixed says are mixed (walks count from 1,
// by the requests for page 0).
func skewedLoans(t *testing.T, mixed func(walk int) bool) *fakeAPI {
	var mu sync.Mutex
	walk := 0
	return &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		mu.Lock()
		if page == 0 {
			walk++
		}
		w := walk
		mu.Unlock()
		if page == 0 {
			return reply{Body: loansPageJSON(0, 2, 3, 100, "A", "B")}
		}
		ts := 100.0
		if mixed(w) {
			ts = 101
		}
		return reply{Body: loansPageJSON(1, 2, 3, ts, "C")}
	}}
}

// pagesAsked lists the page of every request, in arrival order.
func pagesAsked(t *testing.T, reqs []recorded) []int {
	out := make([]int, len(reqs))
	for i, r := range reqs {
		out[i], _ = pageOf(t, r)
	}
	return out
}

// TestLoanSnapshotRereadsAMixedWalk: a walk whose page 1 carries another
// snapshotTs is read again from page 0, and the consistent second walk is
// the answer.
func TestLoanSnapshotRereadsAMixedWalk(t *testing.T) {
	f := skewedLoans(t, func(walk int) bool { return walk == 1 })
	snap, err := loanSnapshot(bg(t), newServer(t, f, nil), market.LoansQuery{Borrowers: []string{"W"}, PageSize: new(2)})
	if err != nil {
		t.Fatalf("loanSnapshot: %v", err)
	}
	if snap.MixedSnapshots || snap.SnapshotTs != 100 || !reflect.DeepEqual(snap.SnapshotsSeen, []float64{100}) ||
		len(snap.Items) != 3 || snap.Duplicates != 0 || snap.Pages != 2 {
		t.Errorf("snapshot: mixed %v, ts %v, seen %v, %d items, %d duplicates, %d pages; want one snapshot of 3 loans in 2 pages",
			snap.MixedSnapshots, snap.SnapshotTs, snap.SnapshotsSeen, len(snap.Items), snap.Duplicates, snap.Pages)
	}
	if got := pagesAsked(t, f.requests()); !reflect.DeepEqual(got, []int{0, 1, 0, 1}) {
		t.Errorf("pages asked %v, want two whole walks [0 1 0 1]", got)
	}
}

// TestLoanSnapshotRefusesAWalkThatStaysMixed: when every walk is mixed,
// LoanPages reads SnapshotWalks walks and returns an error
// naming the endpoint and the differing snapshotTs values.
func TestLoanSnapshotRefusesAWalkThatStaysMixed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		walks int // Options.SnapshotWalks
		want  int // walks read
	}{
		{"default", 0, DefaultSnapshotWalks},
		{"one walk", 1, 1},
		{"five walks", 5, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := skewedLoans(t, func(int) bool { return true })
			c := newServer(t, f, func(o *Options) { o.SnapshotWalks = tc.walks })
			snap, err := loanSnapshot(bg(t), c, market.LoansQuery{Borrowers: []string{"W"}, PageSize: new(2)})
			if snap != nil || !errors.Is(err, ErrMixedSnapshots) {
				t.Fatalf("loanSnapshot = %v, %v; want no snapshot and ErrMixedSnapshots", snap, err)
			}
			me, ok := errors.AsType[*MixedSnapshotsError](err)
			if !ok || me.Endpoint != market.EndpointLoansInfo || me.Walks != tc.want || !reflect.DeepEqual(me.SnapshotTs, []float64{100, 101}) {
				t.Errorf("error %#v, want loans_info, %d walks, snapshotTs [100 101]", me, tc.want)
			}
			for _, s := range []string{"loans_info", "100, 101"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if n := len(f.requests()); n != 2*tc.want {
				t.Errorf("%d pages asked, want %d walks of 2", n, tc.want)
			}
		})
	}
}
