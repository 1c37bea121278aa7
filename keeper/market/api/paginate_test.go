package api

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
	"reflect"
	"strings"
	"testing"
)

// pageOf returns the page and pageSize of a recorded request body.
func pageOf(t *testing.T, r recorded) (page, size int) {
	var b struct {
		Page     *int `json:"page"`
		PageSize *int `json:"pageSize"`
	}
	if err := json.Unmarshal([]byte(r.Body), &b); err != nil || b.Page == nil || b.PageSize == nil {
		t.Errorf("request body %s lacks page/pageSize", r.Body)
		return -1, -1
	}
	return *b.Page, *b.PageSize
}

// loansPageJSON renders a loans page of the given loan addresses.
func loansPageJSON(page, totalPages, totalItems int, ts float64, addrs ...string) string {
	items := make([]string, len(addrs))
	for i, a := range addrs {
		items[i] = `{"loan":{"address":"` + a + `"}}`
	}
	return fmt.Sprintf(`{"items":[%s],"pageInfo":{"page":%d,"pageSize":2,"totalItems":%d,"totalPages":%d},"snapshotTs":%g,`+
		`"aggregate":{"count":%d},"collateralMints":["C"],"principalMints":["P"]}`,
		strings.Join(items, ","), page, totalItems, totalPages, ts, totalItems)
}

// loanSnapshot reads every page LoanPages hands over into one snapshot,
// afresh on each walk, as keeper's whole reads do.
func loanSnapshot(ctx context.Context, c *Client, q market.LoansQuery) (*market.LoansSnapshot, error) {
	var snap *market.LoansSnapshot
	var seen map[string]bool
	last := 0
	err := c.LoanPages(ctx, q, func(walk int, p *market.LoansPage) error {
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

func TestLoanSnapshot(t *testing.T) {
	tests := []struct {
		name      string
		pages     []string // response per page number
		wantAddrs []string
		wantDup   int
		wantPages int
	}{
		{
			name: "three pages",
			pages: []string{loansPageJSON(0, 3, 5, 100, "A", "B"), loansPageJSON(1, 3, 5, 100, "C", "D"),
				loansPageJSON(2, 3, 5, 100, "E")},
			wantAddrs: []string{"A", "B", "C", "D", "E"}, wantPages: 3,
		},
		{ // LoanPages hands a shifted loan over once: the snapshot sees no duplicate
			name:      "a loan shifted pages",
			pages:     []string{loansPageJSON(0, 2, 4, 100, "A", "B"), loansPageJSON(1, 2, 4, 100, "B", "C")},
			wantAddrs: []string{"A", "B", "C"}, wantDup: 0, wantPages: 2,
		},
		{
			name:      "empty page ends the walk",
			pages:     []string{loansPageJSON(0, 5, 10, 100, "A", "B"), loansPageJSON(1, 5, 10, 100)},
			wantAddrs: []string{"A", "B"}, wantPages: 2,
		},
		{
			name:      "legacy array is one page",
			pages:     []string{`[{"loan":{"address":"A"}},{"loan":{"address":"B"}}]`},
			wantAddrs: []string{"A", "B"}, wantPages: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{}
			f.respond = func(_ int, r recorded) reply {
				page, _ := pageOf(t, r)
				if page >= len(tc.pages) { // read ahead past the end of the walk
					return reply{Status: 500, Body: `{"error":{"code":500,"message":"no such page"}}`}
				}
				return reply{Body: tc.pages[page]}
			}
			c := newServer(t, f, nil)
			snap, err := loanSnapshot(bg(t), c, market.LoansQuery{Borrowers: []string{"W"}, Page: new(7), PageSize: new(2)})
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, it := range snap.Items {
				addrs = append(addrs, it.Loan.Address)
			}
			if !reflect.DeepEqual(addrs, tc.wantAddrs) {
				t.Errorf("loans = %v, want %v", addrs, tc.wantAddrs)
			}
			if snap.MixedSnapshots || snap.Duplicates != tc.wantDup || snap.Pages != tc.wantPages {
				t.Errorf("mixed %v dup %d pages %d, want false %d %d", snap.MixedSnapshots, snap.Duplicates, snap.Pages,
					tc.wantDup, tc.wantPages)
			}
			checkPageRequests(t, f.requests(), tc.wantPages)
		})
	}
}

// checkPageRequests checks a walk's requests: page 0 first, then each page
// at most once, with the size and the filter, every page up to the last one
// merged requested, and at most DefaultPagesInFlight-1 read ahead beyond it.
func checkPageRequests(t *testing.T, reqs []recorded, merged int) {
	t.Helper()
	seen := map[int]bool{}
	for i, r := range reqs {
		page, size := pageOf(t, r)
		if (i == 0 && page != 0) || seen[page] || size != 2 || !strings.Contains(r.Body, `"borrowers":["W"]`) {
			t.Errorf("request %d body %s: want page 0 first, each page once, size 2, the filter", i, r.Body)
		}
		seen[page] = true
		if page >= merged+DefaultPagesInFlight-1 {
			t.Errorf("page %d read, more than %d ahead of the last page merged (%d)", page, DefaultPagesInFlight-1, merged-1)
		}
	}
	for p := range merged {
		if !seen[p] {
			t.Errorf("page %d merged but never requested", p)
		}
	}
}

func TestLoanSnapshotOnePageInFlightIsSequential(t *testing.T) {
	pages := []string{loansPageJSON(0, 3, 5, 100, "A", "B"), loansPageJSON(1, 3, 5, 100, "C", "D"), loansPageJSON(2, 3, 5, 100, "E")}
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		return reply{Body: pages[page]}
	}}
	c := newServer(t, f, func(o *Options) { o.PagesInFlight = 1 })
	if _, err := loanSnapshot(bg(t), c, market.LoansQuery{Borrowers: []string{"W"}, PageSize: new(2)}); err != nil {
		t.Fatal(err)
	}
	for i, r := range f.requests() {
		if page, _ := pageOf(t, r); page != i {
			t.Errorf("request %d asked for page %d: one page in flight must walk in order", i, page)
		}
	}
}

func TestLoanSnapshotStopsRequestingAfterAFailure(t *testing.T) {
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		if page == 2 {
			return reply{Status: 400, Body: `{"error":{"code":400,"message":"bad page"}}`}
		}
		return reply{Body: loansPageJSON(page, 50, 100, 100, fmt.Sprint("L", page))}
	}}
	_, err := loanSnapshot(bg(t), newServer(t, f, nil), market.LoansQuery{Borrowers: []string{"W"}, PageSize: new(2)})
	if err == nil || !strings.Contains(err.Error(), "page 2") {
		t.Fatalf("err = %v, want the failing page 2 named", err)
	}
	if n := len(f.requests()); n > 2+DefaultPagesInFlight {
		t.Errorf("%d pages requested of 50: a failure must stop the walk", n)
	}
}

func TestLoanSnapshotFields(t *testing.T) {
	f := &fakeAPI{respond: func(_ int, r recorded) reply {
		page, _ := pageOf(t, r)
		return reply{Body: []string{loansPageJSON(0, 2, 3, 100, "A", "B"), loansPageJSON(1, 2, 3, 100, "C")}[page]}
	}}
	snap, err := loanSnapshot(bg(t), newServer(t, f, nil), market.LoansQuery{PageSize: new(2)})
	if err != nil {
		t.Fatal(err)
	}
	if snap.SnapshotTs != 100 || snap.TotalItems != 3 || snap.Aggregate == nil || snap.Aggregate.Count != 3 ||
		!reflect.DeepEqual(snap.CollateralMints, []string{"C"}) || !reflect.DeepEqual(snap.PrincipalMints, []string{"P"}) {
		t.Errorf("snapshot = %+v", snap)
	}
}

func TestLoanSnapshotErrors(t *testing.T) {
	f := &fakeAPI{respond: sequence(reply{Body: loansPageJSON(0, 3, 6, 1, "A", "B")}, reply{Status: 400})}
	c := newServer(t, f, nil)
	_, err := loanSnapshot(bg(t), c, market.LoansQuery{PageSize: new(2)})
	if err == nil || !strings.Contains(err.Error(), "page 1") || !isTerminal(err) {
		t.Errorf("err = %v, want a terminal error naming page 1", err)
	}
	if _, err := loanSnapshot(bg(t), c, market.LoansQuery{PageSize: new(0)}); err == nil || !isTerminal(err) {
		t.Errorf("page size 0: err = %v", err)
	}
}

func TestLoanSnapshotDefaultPageSize(t *testing.T) {
	f := &fakeAPI{respond: always(reply{Body: loansPageJSON(0, 1, 0, 1)})}
	if _, err := loanSnapshot(bg(t), newServer(t, f, nil), market.LoansQuery{}); err != nil {
		t.Fatal(err)
	}
	if _, size := pageOf(t, f.requests()[0]); size != DefaultPageSize {
		t.Errorf("page size = %d, want %d", size, DefaultPageSize)
	}
}

func TestAllVaultDeposits(t *testing.T) {
	dep := func(vault string, users ...string) string {
		u := make([]string, len(users))
		for i, x := range users {
			u[i] = `{"amountSupplied":"1","userAddress":"` + x + `"}`
		}
		return `{"vaultAddress":"` + vault + `","userDeposits":[` + strings.Join(u, ",") + `]}`
	}
	tests := []struct {
		name  string
		pages []string
		want  map[string][]string // vault → users, in order
		order []string
		calls int
	}{
		{
			name:  "short page by records and users ends",
			pages: []string{`[` + dep("V1", "a") + `,` + dep("V2", "b") + `]`, `[` + dep("V3", "c") + `]`},
			want:  map[string][]string{"V1": {"a"}, "V2": {"b"}, "V3": {"c"}}, order: []string{"V1", "V2", "V3"}, calls: 2,
		},
		{
			name: "page counting users continues and merges a split vault",
			pages: []string{`[` + dep("V1", "a", "b") + `]`, `[` + dep("V1", "c") + `,` + dep("V2", "d") + `]`,
				`[]`},
			want: map[string][]string{"V1": {"a", "b", "c"}, "V2": {"d"}}, order: []string{"V1", "V2"}, calls: 3,
		},
		{
			name: "empty first page", pages: []string{`[]`}, want: map[string][]string{}, calls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{}
			f.respond = func(_ int, r recorded) reply {
				page, _ := pageOf(t, r)
				if page >= len(tc.pages) { // read ahead past the end of the walk
					return reply{Status: 500, Body: `{"error":{"code":500,"message":"no such page"}}`}
				}
				return reply{Body: tc.pages[page]}
			}
			got, err := newServer(t, f, nil).AllVaultDeposits(bg(t), market.VaultDepositsQuery{PageSize: new(2)})
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			users := map[string][]string{}
			for _, v := range got {
				order = append(order, v.VaultAddress)
				for _, u := range v.UserDeposits {
					users[v.VaultAddress] = append(users[v.VaultAddress], u.UserAddress)
				}
			}
			if !reflect.DeepEqual(order, tc.order) || !reflect.DeepEqual(users, tc.want) {
				t.Errorf("got %v %v, want %v %v", order, users, tc.order, tc.want)
			}
			if n := len(f.requests()); n != tc.calls {
				t.Errorf("calls = %d, want %d", n, tc.calls)
			}
		})
	}
}

func TestAllVaults(t *testing.T) {
	v := func(addr string) string { return `{"address":"` + addr + `"}` }
	tests := []struct {
		name  string
		pages []string
		want  []string
		calls int
	}{
		{"pageInfo", []string{
			`{"items":[` + v("A") + `,` + v("B") + `],"pageInfo":{"page":0,"pageSize":2,"totalItems":3,"totalPages":2}}`,
			`{"items":[` + v("C") + `],"pageInfo":{"page":1,"pageSize":2,"totalItems":3,"totalPages":2}}`,
		}, []string{"A", "B", "C"}, 2},
		{"bare arrays until short page", []string{`[` + v("A") + `,` + v("B") + `]`, `[` + v("B") + `,` + v("C") + `]`, `[]`},
			[]string{"A", "B", "C"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{}
			f.respond = func(_ int, r recorded) reply {
				page, _ := pageOf(t, r)
				if page >= len(tc.pages) { // read ahead past the end of the walk
					return reply{Status: 500, Body: `{"error":{"code":500,"message":"no such page"}}`}
				}
				return reply{Body: tc.pages[page]}
			}
			got, err := newServer(t, f, nil).AllVaults(bg(t), market.VaultsQuery{PageSize: new(2), IncludeRewards: true})
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, x := range got {
				addrs = append(addrs, x.Address)
			}
			if !reflect.DeepEqual(addrs, tc.want) || len(f.requests()) != tc.calls {
				t.Errorf("vaults %v after %d calls, want %v after %d", addrs, len(f.requests()), tc.want, tc.calls)
			}
		})
	}
}
