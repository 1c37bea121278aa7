package market

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeLoansGenerations(t *testing.T) {
	legacyArray := LoanItem{
		Loan: Loan{Address: "LoanOld1", Borrower: "B1", Bump: 255, Closed: true, LastInteractedTime: 1600000000,
			LastInteractedTxn: "sigOld", LoanStatus: 2, StartTime: 1599990000, WriteVersion: 1, ID: 1},
		Collateral: []Collateral{},
		Ledgers: []Ledger{{Apy: 50000, Duration: 1, DurationType: DurationMonths, StartTime: 1599990000,
			EndTime: 1602582000, LastInterestUpdatedTime: 1600000000, LastInteractedTime: 1600000000,
			LastInteractedTxn: "sigOld", Loan: "LoanOld1", LqtRatios: []CBPS{}, LtvRatios: []CBPS{}, Weights: []CBPS{},
			PrincipalDue: 5, PrincipalMint: "MintP", PrincipalRepaid: 5, Status: 3, Strategy: "S", ID: 2, IsLoop: 1,
			WriteVersion: 1}},
		CollateralBreakdown: []CollateralUSD{},
	}
	legacyObject := LoanItem{
		Loan: Loan{Address: "LoanOld2", Borrower: "B2", Bump: 1, LastInteractedTime: 1600000000,
			LastInteractedTxn: "t", LoanStatus: 1, Nonce: 1, StartTime: 1599990000, WriteVersion: 2, ID: 3},
		Collateral: []Collateral{},
		Ledgers: []Ledger{{LedgerIndex: 1, LastInterestUpdatedTime: 1600000001, PrincipalDue: 7,
			PrincipalMint: "MintP", DurationType: DurationYears, Duration: 1}},
		LoanType: 1,
	}
	tests := []struct {
		file string
		want *LoansPage
	}{
		{"loans_info.json", wantLoansPage()},
		{"loans_info_legacy_array.json", &LoansPage{Items: []LoanItem{legacyArray}}},
		{"loans_info_legacy_object.json", &LoansPage{Items: []LoanItem{legacyObject},
			PageInfo: &PageInfo{PageSize: 10, TotalItems: 1, TotalPages: 1}, SnapshotTs: 1600000000}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var got LoansPage
			if err := json.Unmarshal([]byte(readFixture(t, tc.file)), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestLedgerNewNameWins(t *testing.T) {
	var l Ledger
	in := `{"lastInterestUpdatedTime":200,"lastInterestUpdateTime":100}`
	if err := json.Unmarshal([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	if l.LastInterestUpdatedTime != 200 {
		t.Errorf("LastInterestUpdatedTime = %d, want 200", l.LastInterestUpdatedTime)
	}
}

func TestLedgerEncodesCurrentName(t *testing.T) {
	b, err := json.Marshal(Ledger{LastInterestUpdatedTime: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"lastInterestUpdatedTime":5`) || strings.Contains(string(b), "lastInterestUpdateTime") {
		t.Errorf("encoded ledger %s", b)
	}
}

func TestDecodeVaultsShapes(t *testing.T) {
	record := `{"address":"V","vaultStrategy":{"strategy":{"tokenBalance":"1"}}}`
	want := []Vault{{Address: "V", VaultStrategy: VaultStrategy{Strategy: StrategyState{TokenBalance: 1}}}}
	tests := []struct {
		name, in string
		info     *PageInfo
	}{
		{"bare array", `[` + record + `]`, nil},
		{"items", `{"items":[` + record + `]}`, nil},
		{"vaults with pageInfo", `{"vaults":[` + record + `],"pageInfo":{"page":0,"pageSize":1,"totalItems":3,"totalPages":3}}`,
			&PageInfo{PageSize: 1, TotalItems: 3, TotalPages: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got VaultsPage
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatal(err)
			}
			if string(got.Items[0].Raw) != record {
				t.Errorf("Raw = %s, want %s", got.Items[0].Raw, record)
			}
			clearRaw(&got)
			if !reflect.DeepEqual(got.Items, want) || !reflect.DeepEqual(got.PageInfo, tc.info) {
				t.Errorf("got %#v / %#v", got.Items, got.PageInfo)
			}
		})
	}
}

func TestVaultRawKeepsUnknownFields(t *testing.T) {
	var p VaultsPage
	if err := json.Unmarshal([]byte(readFixture(t, "vaults_info.json")), &p); err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(p.Items[0].Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["tvlUsd"]) != "1000.25" {
		t.Errorf("raw tvlUsd = %s, want 1000.25", raw["tvlUsd"])
	}
}

func TestCollateralTermAPYs(t *testing.T) {
	v := wantVaultsPage().Items[0]
	term, ok := v.Term(solMint)
	if !ok {
		t.Fatal("term for SOL not found")
	}
	got, err := term.APYs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[StrategyDuration]CBPS{{DurationDays, 7}: 85000, {DurationWeeks, 2}: 90000}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("APYs = %v, want %v", got, want)
	}
	if _, ok := v.Term("other"); ok {
		t.Error("Term(other) found a term")
	}
}

func TestDecodeLoopShapes(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Loop
		wantErr  bool
	}{
		{"array", `[{"identifier":"a","wAvgApy":"0.1"}]`, []Loop{{Identifier: "a", WAvgApy: 0.1}}, false},
		{"loops", `{"loops":[{"identifier":"b","maxApy":0.3}]}`, []Loop{{Identifier: "b", MaxApy: new(Number(0.3))}}, false},
		{"loopInfos", `{"loopInfos":[{"identifier":"c"}]}`, []Loop{{Identifier: "c"}}, false},
		{"unknown object", `{"data":[]}`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got LoopList
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && !reflect.DeepEqual(clearRaw([]Loop(got)), tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestEnumStrings(t *testing.T) {
	tests := []struct {
		v    interface{ String() string }
		want string
	}{
		{DurationDays, "days"}, {DurationWeeks, "weeks"}, {DurationMonths, "months"},
		{DurationMinutes, "minutes"}, {DurationYears, "years"}, {DurationType(7), "durationType(7)"},
		{FilterActive, "active"}, {FilterType(3), "filterType(3)"},
		{SortAscending, "ascending"}, {SortDescending, "descending"}, {SortSide(9), "sortSide(9)"},
		{LoanStatus(3), "loanStatus(3)"}, {LedgerStatus(-1), "status(-1)"}, {AssetType(2), "assetType(2)"},
		{LoanType(1), "loanType(1)"}, {OracleType(4), "oracleType(4)"}, {SortType(0), "sortType(0)"},
		{OrderFundingType(1), "orderFundingTypes(1)"}, {VaultSortKey(2), "sort(2)"},
		{StakeDuration(5), "stakeDuration(5)"}, {PositionStatus(6), "positionStatus(6)"},
		{StrategyDuration{DurationWeeks, 2}, "2 weeks"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestExcludeCollateral(t *testing.T) {
	q := LoansQuery{ExcludeCollateralMints: []string{"M0"}}
	q.ExcludeCollateral("Pool1", "Mint2")
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"excludeCollateralMints":["M0","Pool1","Mint2"],"excludeCollateralIdentifiers":["Pool1","Mint2"]}`
	if string(b) != want {
		t.Errorf("body %s, want %s", b, want)
	}
	if b, _ := json.Marshal(LoansQuery{}); string(b) != `{}` {
		t.Errorf("empty query encodes as %s, want {}", b)
	}
}
