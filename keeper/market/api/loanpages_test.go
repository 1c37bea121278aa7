package api

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/market"
)

// visitLog records what LoanPages handed over: per call, the walk and the
// page's loan addresses.
type visitLog struct {
	walks []int
	pages [][]string
}

func (v *visitLog) visit(walk int, p *market.LoansPage) error {
	var addrs []string
	for _, it := range p.Items {
		addrs = append(addrs, it.Loan.Address)
	}
	v.walks = append(v.walks, walk)
	v.pages = append(v.pages, addrs)
	return nil
}

// TestLoanPagesHandsOverEveryPageInOrder: the pages of a walk reach visit
// in page order, each once, whatever order their answers came in.
func TestLoanPagesHandsOverEveryPageInOrder(t *testing.T) {
	pages := []string{loansPageJSON(0, 4, 7, 100, "A", "B"), loansPageJSON(1, 4, 7, 100, "C", "D"),
		loansPageJSON(2, 4, 7, 100, "E", "F"), loansPageJSON(3, 4, 7, 100, "G")}
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		return reply{Body: pages[page]}
	}}
	var v visitLog
	if err := newServer(t, f, nil).LoanPages(bg(t), market.LoansQuery{Borrowers: []string{"W"}, PageSize: new(2)}, v.visit); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"A", "B"}, {"C", "D"}, {"E", "F"}, {"G"}}
	if !reflect.DeepEqual(v.pages, want) || !reflect.DeepEqual(v.walks, []int{1, 1, 1, 1}) {
		t.Errorf("visited %v in walks %v, want %v in walk 1", v.pages, v.walks, want)
	}
	checkPageRequests(t, f.requests(), 4)
}

// TestLoanPagesReadsAMixedWalkAgain: the first page with another snapshot
// than page 0's is not handed over; the walk is read again from page 0
// under the next walk number, and a walk that stays mixed is refused.
func TestLoanPagesReadsAMixedWalkAgain(t *testing.T) {
	f := skewedLoans(t, func(walk int) bool { return walk == 1 })
	var v visitLog
	if err := newServer(t, f, nil).LoanPages(bg(t), market.LoansQuery{Borrowers: []string{"W"}, PageSize: new(2)}, v.visit); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"A", "B"}, {"A", "B"}, {"C"}}; !reflect.DeepEqual(v.pages, want) || !reflect.DeepEqual(v.walks, []int{1, 2, 2}) {
		t.Errorf("visited %v in walks %v, want %v in walks [1 2 2]", v.pages, v.walks, want)
	}

	f = skewedLoans(t, func(int) bool { return true })
	v = visitLog{}
	err := newServer(t, f, nil).LoanPages(bg(t), market.LoansQuery{PageSize: new(2)}, v.visit)
	me, ok := errors.AsType[*MixedSnapshotsError](err)
	if !ok || me.Walks != DefaultSnapshotWalks || !reflect.DeepEqual(me.SnapshotTs, []float64{100, 101}) {
		t.Fatalf("err = %v, want a MixedSnapshotsError after %d walks naming 100 and 101", err, DefaultSnapshotWalks)
	}
	if len(v.pages) != DefaultSnapshotWalks {
		t.Errorf("visited %d pages, want page 0 of each of %d walks", len(v.pages), DefaultSnapshotWalks)
	}
}

// TestLoanPagesStopsAtVisitsError: an error from visit ends the walk, is
// returned as it is, and no page beyond the read-ahead window is asked for.
func TestLoanPagesStopsAtVisitsError(t *testing.T) {
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		return reply{Body: loansPageJSON(page, 50, 100, 100, fmt.Sprint("L", page))}
	}}
	stop := errors.New("enough")
	calls := 0
	err := newServer(t, f, nil).LoanPages(bg(t), market.LoansQuery{PageSize: new(2)}, func(_ int, p *market.LoansPage) error {
		calls++
		if p.Items[0].Loan.Address == "L2" {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Fatalf("err = %v after %d visits, want visit's own error at the third page", err, calls)
	}
	if n := len(f.requests()); n > 3+DefaultPagesInFlight {
		t.Errorf("%d pages requested of 50: visit's error must stop the walk", n)
	}
}

// TestLoanPagesHandsOverALoanOnce: a loan that shifted to the next page
// while the walk ran is handed over with the first page only.
func TestLoanPagesHandsOverALoanOnce(t *testing.T) {
	a, b, c := key(1), key(2), key(3)
	pages := []string{loansPageJSON(0, 2, 4, 100, a, b), loansPageJSON(1, 2, 4, 100, b, c, "not-base58", "not-base58")}
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		return reply{Body: pages[page]}
	}}
	var v visitLog
	if err := newServer(t, f, nil).LoanPages(bg(t), market.LoansQuery{PageSize: new(2)}, v.visit); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{a, b}, {c, "not-base58"}}; !reflect.DeepEqual(v.pages, want) {
		t.Errorf("visited %v, want %v", v.pages, want)
	}
}

// key is a base58 address made of one repeated byte.
func key(b byte) string {
	var pk solana.PublicKey
	for i := range pk {
		pk[i] = b
	}
	return pk.String()
}
