package market

import (
	"strings"
	"testing"
	"time"
)

func TestLoanFacts(t *testing.T) {
	const now = 1700000000
	base := wantLoanItem() // 10 SOL worth $2000.5; 1000 USDC due, lqt 85 %, weight 100 %, ends now+594,800 s

	priced := func(p float64) PrincipalPriceFunc {
		return func(m string) (float64, bool) { return p, m == usdcMint }
	}
	closed := base
	closed.Loan.Closed = true
	repaid := wantLoanItem()
	repaid.Ledgers[0].PrincipalRepaid = repaid.Ledgers[0].PrincipalDue
	repaid.Ledgers[0].InterestOutstanding, repaid.Ledgers[0].InterestPerSecond = 0, 0
	noBreakdown := wantLoanItem()
	noBreakdown.CollateralBreakdown = nil

	tests := []struct {
		name  string
		item  LoanItem
		now   int64
		price PrincipalPriceFunc
		want  LoanFacts
	}{
		// debt = 1e9 + 1.25e6 + 0.5·594,800 = 1,001,547,400 units; principalUsd 1000 / 1e9 units → $1e-6 per unit
		// → $1001.5474. capacity = 2000.5·1.0·0.85 = 1700.425. health = 1 − 1001.5474/1700.425 = 0.41100172015819.
		// LTV = 1001.5474/2000.5 = 0.50064853786553.
		{"ratio priced", base, now, nil, LoanFacts{Active: true, Health: 0.4110017201581958, DebtUSD: 1001.5474,
			CollateralUSD: 2000.5, CapacityUSD: 1700.425, CurrentLTV: 0.5006485378655335, LiquidationLTV: 0.85,
			TimeToEnd: 594800 * time.Second}},
		{"injected price equal", base, now, priced(1e-6), LoanFacts{Active: true, Health: 0.4110017201581958,
			DebtUSD: 1001.5474, CollateralUSD: 2000.5, CapacityUSD: 1700.425, CurrentLTV: 0.5006485378655335,
			LiquidationLTV: 0.85, TimeToEnd: 594800 * time.Second}},
		// Price doubled: health = 1 − 2003.0948/1700.425 = −0.1779965596836.
		{"injected price doubled", base, now, priced(2e-6), LoanFacts{Active: true, Health: -0.1779965596836084,
			DebtUSD: 2003.0948, CollateralUSD: 2000.5, CapacityUSD: 1700.425, CurrentLTV: 2003.0948 / 2000.5,
			LiquidationLTV: 0.85, TimeToEnd: 594800 * time.Second}},
		// 5,200 s past the end: no future interest; debt $1001.25; health = 1 − 1001.25/1700.425.
		{"term ended", base, 1700600000, nil, LoanFacts{Active: true, Health: 0.41117661761030333, DebtUSD: 1001.25,
			CollateralUSD: 2000.5, CapacityUSD: 1700.425, CurrentLTV: 1001.25 / 2000.5, LiquidationLTV: 0.85,
			TimeToEnd: -5200 * time.Second}},
		{"closed", closed, now, nil, LoanFacts{Active: false, Health: 0.4110017201581958, DebtUSD: 1001.5474,
			CollateralUSD: 2000.5, CapacityUSD: 1700.425, CurrentLTV: 0.5006485378655335, LiquidationLTV: 0.85,
			TimeToEnd: 594800 * time.Second}},
		{"repaid", repaid, now, nil, LoanFacts{Active: false, Health: 1, CollateralUSD: 2000.5}},
		{"single collateral without breakdown", noBreakdown, now, nil, LoanFacts{Active: true,
			Health: 0.4110017201581958, DebtUSD: 1001.5474, CollateralUSD: 2000.5, CapacityUSD: 1700.425,
			CurrentLTV: 0.5006485378655335, LiquidationLTV: 0.85, TimeToEnd: 594800 * time.Second}},
		// Two collaterals A ($1000, index 0) and B ($500, index 1); two ledgers, $1e-6 per unit.
		// Ledger 0: $300 debt, capacity 1000·0.6·0.8 + 500·1.0·0.7 = 830 → health 1 − 300/830 = 0.63855421686747.
		// Ledger 1: $350 debt, capacity 1000·0.4·0.8 = 320 → health 1 − 350/320 = −0.09375 (the minimum).
		// LTV 650/1500; liquidation LTV (830 + 320)/1500.
		{"two ledgers two collaterals", twoByTwo(), now, nil, LoanFacts{Active: true, Health: -0.09375, DebtUSD: 650,
			CollateralUSD: 1500, CapacityUSD: 1150, CurrentLTV: 650.0 / 1500, LiquidationLTV: 1150.0 / 1500,
			TimeToEnd: 1000 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ComputeLoanFacts(tc.item, time.Unix(tc.now, 0), tc.price)
			if err != nil {
				t.Fatal(err)
			}
			if got.Active != tc.want.Active || !near(got.Health, tc.want.Health) || !near(got.DebtUSD, tc.want.DebtUSD) ||
				!near(got.CollateralUSD, tc.want.CollateralUSD) || !near(got.CapacityUSD, tc.want.CapacityUSD) ||
				!near(got.CurrentLTV, tc.want.CurrentLTV) || !near(got.LiquidationLTV, tc.want.LiquidationLTV) ||
				got.TimeToEnd != tc.want.TimeToEnd {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if len(got.Ledgers) != len(tc.item.Ledgers) {
				t.Errorf("ledger facts = %d, want %d", len(got.Ledgers), len(tc.item.Ledgers))
			}
		})
	}
}

func TestLoanFactsLedgerDetail(t *testing.T) {
	got, err := ComputeLoanFacts(twoByTwo(), time.Unix(1700000000, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	l0, l1 := got.Ledgers[0], got.Ledgers[1]
	if l0.Outstanding != 300_000_000 || !near(l0.Debt, 300e6) || !near(l0.CapacityUSD, 830) ||
		!near(l0.Health, 0.6385542168674698) || l0.TimeToEnd != 2000*time.Second {
		t.Errorf("ledger 0 = %+v", l0)
	}
	if l1.LedgerIndex != 1 || !near(l1.DebtUSD, 350) || !near(l1.CapacityUSD, 320) || !near(l1.Health, -0.09375) ||
		l1.TimeToEnd != 1000*time.Second {
		t.Errorf("ledger 1 = %+v", l1)
	}
}

// twoByTwo is a loan with collaterals A ($1000, index 0) and B ($500, index 1) and two USDC ledgers of
// $300 and $350, ending 2000 s and 1000 s after 1,700,000,000.
func twoByTwo() LoanItem {
	return LoanItem{
		Loan: Loan{Address: "L2"},
		Collateral: []Collateral{
			{AssetIdentifier: "A", AssetMint: "A", Index: 0},
			{AssetIdentifier: "PoolB", AssetMint: "B", Index: 1},
		},
		CollateralBreakdown: []CollateralUSD{{AssetIdentifier: "A", Usd: 1000}, {AssetIdentifier: "PoolB", Usd: 500}},
		CollateralUsd:       1500, PrincipalUsd: 650,
		Ledgers: []Ledger{
			{LedgerIndex: 0, PrincipalMint: usdcMint, PrincipalDue: 300_000_000, EndTime: 1700002000,
				Weights: []CBPS{600000, 1000000}, LqtRatios: []CBPS{800000, 700000}},
			{LedgerIndex: 1, PrincipalMint: usdcMint, PrincipalDue: 400_000_000, PrincipalRepaid: 50_000_000,
				EndTime: 1700001000, Weights: []CBPS{400000, 0}, LqtRatios: []CBPS{800000, 700000}},
		},
	}
}

func TestLoanFactsErrors(t *testing.T) {
	missingBreakdown := twoByTwo()
	missingBreakdown.CollateralBreakdown = missingBreakdown.CollateralBreakdown[:1]
	noCapacity := twoByTwo()
	noCapacity.Ledgers[1].Weights = nil
	mixedMints := twoByTwo()
	mixedMints.Ledgers[1].PrincipalMint = solMint
	tests := []struct {
		name  string
		item  LoanItem
		price PrincipalPriceFunc
		want  string
	}{
		{"collateral without breakdown", missingBreakdown, nil, "collateral PoolB has no collateralBreakdown entry"},
		{"debt without capacity", noCapacity, nil, "ledger 1 has debt but no collateral capacity"},
		{"mixed mints without price", mixedMints, nil, "ledger 0: no price for principal mint"},
		{"mixed mints with one price", mixedMints, func(m string) (float64, bool) { return 1e-6, m == usdcMint },
			"ledger 1: no price for principal mint " + solMint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ComputeLoanFacts(tc.item, time.Unix(1700000000, 0), tc.price)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "loan L2") {
				t.Errorf("err = %v, want it to contain %q and the loan", err, tc.want)
			}
		})
	}
	bothPriced, err := ComputeLoanFacts(mixedMints, time.Unix(1700000000, 0), func(string) (float64, bool) { return 1e-6, true })
	if err != nil || !near(bothPriced.DebtUSD, 650) {
		t.Errorf("both mints priced: %+v, %v", bothPriced, err)
	}
}
