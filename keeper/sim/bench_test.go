package sim

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// benchSim returns a simulator of the default scenario on a manual clock.
func benchSim(b *testing.B) *Sim {
	b.Helper()
	s, err := New(Options{Clock: chainsim.NewManualClock(testStart), Wallet: testWallet()})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// serveBench calls the market handler once and fails unless it answers 200.
func serveBench(b *testing.B, h http.Handler, path, key, body string) {
	req := httptest.NewRequest(http.MethodPost, "/v1/"+path, strings.NewReader(body))
	req.Header.Set("user-wallet", testWallet().String())
	if key != "" {
		req.Header.Set("Idempotent-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
}

// BenchmarkLoansInfo measures one loans-info read of the default scenario's seven loans with PnL.
func BenchmarkLoansInfo(b *testing.B) {
	h := benchSim(b).MarketHandler()
	for b.Loop() {
		serveBench(b, h, "markets/loans/info", "", `{"includePnl":true}`)
	}
}

// BenchmarkBuildRepay measures building and co-signing one repay transaction (a new key each time).
func BenchmarkBuildRepay(b *testing.B) {
	s := benchSim(b)
	h := s.MarketHandler()
	loan, _ := s.Address(KindLoan, "repay-me")
	body := `{"loan":"` + loan.String() + `","steps":[{"type":"repay","params":{"repayParams":[{"amount":1000,"ledgerIndex":0,"repayAll":false}]}}]}`
	i := 0
	for b.Loop() {
		i++
		serveBench(b, h, "markets/creditbook/build", fmt.Sprintf("bench-%d", i), body)
	}
}
