package sim

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
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
	h := benchSim(b).Handlers().Market
	for b.Loop() {
		serveBench(b, h, "markets/loans/info", "", `{"includePnl":true}`)
	}
}

// BenchmarkBuildRepay measures building and co-signing one repay transaction (a new key each time).
func BenchmarkBuildRepay(b *testing.B) {
	s := benchSim(b)
	h := s.Handlers().Market
	loan, _ := s.Accounts().Address(ids.KindLoan, "repay-me")
	body := `{"loan":"` + loan.String() + `","steps":[{"type":"repay","params":{"repayParams":[{"amount":1000,"ledgerIndex":0,"repayAll":false}]}}]}`
	i := 0
	for b.Loop() {
		i++
		serveBench(b, h, "markets/creditbook/build", fmt.Sprintf("bench-%d", i), body)
	}
}

// manyLoansScenario returns a scenario of n loans of the wallet (10 SOL against 500 USDC each).
func manyLoansScenario(b *testing.B, n int) *scenario.Scenario {
	b.Helper()
	var sb strings.Builder
	sb.WriteString(`name: many
wallet: {sol: "10"}
mints:
  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: SOL, decimals: 9, price: 150}
wallets:
  - {name: lender, fund: {sol: "2"}}
strategies:
  - name: beta
    authority: lender
    principal_mint: USDC
    idle: "100000"
    terms:
      - {collateral: SOL, ltv: 650000, lqt: 850000, apys: {30d: 95000}}
loans:
`)
	for i := range n {
		fmt.Fprintf(&sb, "  - {name: l%d, borrower: $wallet, collateral: [{mint: SOL, amount: \"10\"}], ledgers: [{strategy: beta, principal: \"500\", term: 30d}]}\n", i)
	}
	sc, err := ParseScenario("many.yaml", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkLoansInfoPage measures one 100-loan page of walks over 10,000 and 100,000 loans at one
// instant (the pages of one walk share a snapshot time), the first page of a walk included.
func BenchmarkLoansInfoPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("loans=%d", n), func(b *testing.B) {
			s, err := New(Options{Clock: chainsim.NewManualClock(testStart), Wallet: testWallet(), Scenario: manyLoansScenario(b, n)})
			if err != nil {
				b.Fatal(err)
			}
			h := s.Handlers().Market
			pages, page := n/100, 0
			for b.Loop() {
				serveBench(b, h, "markets/loans/info", "", fmt.Sprintf(`{"page":%d,"pageSize":100}`, page%pages))
				page++
			}
		})
	}
}
