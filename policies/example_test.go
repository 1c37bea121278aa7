package policies_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

func Example() {
	const (
		wallet = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
		usdc   = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
		coll   = "So11111111111111111111111111111111111111112"
		addr   = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"
	)
	src := `
policies:
  - name: keep-usdc-loans-healthy
    kind: repay
    schedule: "@every 1m"
    params: { trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000 }
`
	ps, err := policies.Parse("policies.yaml", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	// One loan: 10,000 USD of collateral at an 80 % liquidation threshold
	// (capacity 8,000) against 7,500 USDC: health 1 − 7500/8000 = 0.0625.
	obs := &policies.Observation{
		Wallet:       wallet,
		SnapshotTime: now,
		Tokens:       map[string]policies.Token{usdc: {Symbol: "USDC", Decimals: 6, PriceUSD: 1}},
		Loans: []market.LoanItem{{
			Loan:                market.Loan{Address: addr, Borrower: wallet},
			Collateral:          []market.Collateral{{AssetIdentifier: coll, AssetMint: coll}},
			CollateralBreakdown: []market.CollateralUSD{{AssetIdentifier: coll, Usd: 10_000}},
			Ledgers: []market.Ledger{{PrincipalMint: usdc, PrincipalDue: 7_500_000_000,
				EndTime: market.UnixTimeOf(now.Add(30 * 24 * time.Hour)), Weights: []market.CBPS{1_000_000}, LqtRatios: []market.CBPS{800_000}}},
		}},
	}
	res, err := policies.Evaluate(ps[0], obs, now, policies.History{}, &policies.State{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Actions {
		body, _ := json.Marshal(a.Request.Body())
		fmt.Println(a.Reason)
		fmt.Println(a.Request.Endpoint(), string(body))
		fmt.Println("max outflow:", a.Bounds.MaxOutflow[usdc])
	}
	// Output:
	// health 0.0625 < 0.10: repay 1500 USDC on ledger 0 to reach 0.25
	// E2 {"loan":"4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T","steps":[{"type":"repay","params":{"loan":"4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T","repayParams":[{"amount":1500000000,"ledgerIndex":0,"repayAll":false}]}}]}
	// max outflow: 1500000000
}

func ExampleParse_errors() {
	src := `
policies:
  - name: typo
    kind: repay
    schedule: "@every 1m"
    when: loan.helth < 0.1
    params: { target_health: 0.2, max_amount: 1000, min_amount: 5000 }
`
	_, err := policies.Parse("policies.yaml", []byte(src))
	fmt.Println(err)
	// Output:
	// policies.yaml:6:16: policy "typo": when: LoanFacts has no field "helth" (did you mean "health"?)
	// policies.yaml:7:65: policy "typo": params.min_amount (5000) is above max_amount (1000)
}
