package market

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// loansPageOf returns a loans-info page of n copies of the fixture item (with pnl).
func loansPageOf(b testing.TB, n int) []byte {
	item, err := json.Marshal(wantLoanItem())
	if err != nil {
		b.Fatal(err)
	}
	items := strings.Repeat(string(item)+",", n-1) + string(item)
	return []byte(`{"items":[` + items + `],"pageInfo":{"page":0,"pageSize":100,"totalItems":100,"totalPages":1},"snapshotTs":1}`)
}

func BenchmarkDecodeLoansPage100(b *testing.B) {
	data := loansPageOf(b, 100)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var p LoansPage
		if err := DecodeAnswer(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkComputeLoanFacts(b *testing.B) {
	item := twoByTwo()
	now := time.Unix(1700000000, 0)
	for b.Loop() {
		if _, err := ComputeLoanFacts(item, now, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkComputeVaultMetrics(b *testing.B) {
	v := wantVaultsPage().Items[0]
	now := time.Unix(1750000000, 0)
	price := func(string) (float64, bool) { return 0.5, true }
	for b.Loop() {
		_ = ComputeVaultMetrics(v, now, price)
	}
}
