package market

import (
	"os"
	"testing"
)

const (
	solMint  = "So11111111111111111111111111111111111111112"
	usdcMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	loan1    = "Loan1111111111111111111111111111111111111111"
	// testWallet is the borrower of the fixtures' loans.
	testWallet = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
)

// readFixture returns a testdata file's content.
func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantLoansPage is testdata/loans_info.json decoded by hand.
func wantLoansPage() *LoansPage {
	return &LoansPage{
		Aggregate: &Aggregate{
			Count: 1, CollateralUsd: 2000.5, PrincipalUsd: 1000, InterestAccruedUsd: 1.25,
			PendingYieldUsd: 0.5, DailyInterestUsd: 0.27, DailyCollateralYieldUsd: 0.41, WAvgApy: 0.085,
			WAvgCollateralApy: 0.07, PnlUsd: 12.5, TokenUsdPnl: 3.25,
		},
		CollateralMints: []string{solMint},
		Items:           []LoanItem{wantLoanItem()},
		PageInfo:        &PageInfo{Page: 0, PageSize: 50, TotalItems: 1, TotalPages: 1},
		PrincipalMints:  []string{usdcMint},
		SnapshotTs:      1700000123.5,
	}
}

// wantLoanItem is the one item of testdata/loans_info.json.
func wantLoanItem() LoanItem {
	return LoanItem{
		Loan: Loan{
			Address: loan1, Borrower: testWallet, Bump: 254, LastInteractedTime: 1700000100,
			LastInteractedTxn: "sigA", LoanStatus: 7, Nonce: 3, StartTime: 1699990000,
			WriteVersion: 981234567890, ID: 42,
		},
		Collateral: []Collateral{{
			Amount: 10_000_000_000, AssetIdentifier: solMint, AssetMint: solMint, AssetType: 99, Index: 0,
			Loan: loan1, ID: 7, LastInteractedTime: 1700000100, LastInteractedTxn: "sigA", WriteVersion: 981234567890,
		}},
		Ledgers: []Ledger{{
			Apy: 85000, Duration: 7, DurationType: DurationDays, StartTime: 1699990000, EndTime: 1700594800,
			InterestOutstanding: 1_250_000, InterestPerSecond: 0.5, LastInterestUpdatedTime: 1700000000,
			LastInteractedTime: 1700000100, LastInteractedTxn: "sigA", LedgerIndex: 0, Loan: loan1,
			LqtRatios: []CBPS{850000, 0, 0, 0, 0}, LtvRatios: []CBPS{750000, 0, 0, 0, 0},
			Weights: []CBPS{1000000, 0, 0, 0, 0}, MarketInformation: "MktInfo1", PrincipalDue: 1_000_000_000,
			PrincipalMint: usdcMint, PrincipalRepaid: 0, Status: 12, Strategy: "Strat1", ID: 9, IsLoop: 0,
			WriteVersion: 981234567890,
		}},
		LoanType: 5, CollateralYieldPct: 0.07,
		CollateralBreakdown: []CollateralUSD{{AssetIdentifier: solMint, Usd: 2000.5}},
		CollateralUsd:       2000.5, CollateralUsdRisk: 1900, PrincipalUsd: 1000, PrincipalUsdRisk: 1010,
		InterestAccruedUsd: 1.25, PendingYieldUsd: 0.5, PnlUsd: 12.5,
		Pnl: &PnL{
			CollateralPnl: 1.5, CollateralPnlPctChange: 0.01, InitialUserCollateralContribution: 10,
			InitialUserCollateralContributionUsd: 1990, NetCollateralInflow: 10, NetCollateralUsdInflow: 1990,
			NetPrincipalInflow: -1000, NetPrincipalUsdInflow: -1000, TokenUsdPnl: 3.25, UsdPnl: 12.5,
			UsdPnlPctChange: 0.0063,
			Markers: []PnLMarker{{Date: 1700000000, Type: MarkerRollover,
				Metadata: MarkerMetadata{NewCollateralMint: "NewMint", PreviousCollateralMint: "OldMint"}}},
			PnlData: Series[PnLPoint]{DataPoints: []PnLPoint{{
				Date: 1700000000, CollateralPrice: 200.05, CollateralValueUsd: 2000.5,
				NetCollateralTransferTokenAmount: 10, NetCollateralTransferUsdAmount: 1990,
				NetPositionValueTokenAmount: 5, NetPositionValueUsd: 1000.5, PrincipalValueUsd: 1000,
				TokenPnl: 0.05, UsdPnl: 12.5,
			}}},
			PositionValueData: Series[PositionValuePoint]{DataPoints: []PositionValuePoint{{
				CollateralMint: solMint, Date: 1700000000, CollateralTokenAmount: 10,
				CollateralTokenAmountOfDebt: 5, CollateralValueUsd: 2000.5, IsProjection: true,
				NetPositionValueTokenAmount: 5, NetPositionValueUsd: 1000.5, PrincipalValueUsd: 1000,
			}}},
			RateHistoryData: Series[RatePoint]{DataPoints: []RatePoint{{
				CollateralMint: solMint, Date: 1700000000, BorrowApy: 0.085, CollateralApy: 0.07, NetApy: -0.015,
			}}},
		},
	}
}

// wantVaultsPage is testdata/vaults_info.json decoded by hand (Raw left empty).
func wantVaultsPage() *VaultsPage {
	return &VaultsPage{
		Items: []Vault{{
			Address: "VaultA", PrincipalMint: usdcMint,
			VaultStrategy: VaultStrategy{
				Strategy: StrategyState{
					Address: "StratA", Authority: "AuthA", TokenBalance: 400_000_000,
					ExternalYieldAmount: 300_000_000, CurrentDeployedAmount: 250_000_000,
					OutstandingInterestAmount: 50_000_000, InterestPerSecond: 1.5, OriginationsEnabled: true,
				},
				CollateralTerms: []CollateralTerm{{
					AssetIdentifier: solMint,
					DurationsAndApys: map[string]CBPS{
						`{"durationType":0,"duration":7}`: 85000, `{"durationType":1,"duration":2}`: 90000,
					},
					MaxAllocationPct: "25", CurrentAllocation: 125_000_000,
				}},
			},
			ExternalYieldInfo: &ExternalYieldInfo{Apy: 0.05},
			VaultRewardsSchedule: []RewardSchedule{{
				RewardMint: "RewardMint1", RewardStartTime: 1700000000, RewardEndTime: 1800000000,
				EmissionsPerSecond: 1e9,
			}},
		}},
		PageInfo: &PageInfo{Page: 0, PageSize: 10, TotalItems: 1, TotalPages: 1},
	}
}

// clearRaw empties the Raw members of decoded values so they compare with hand-built ones.
func clearRaw(v any) any {
	switch x := v.(type) {
	case *VaultsPage:
		for i := range x.Items {
			x.Items[i].Raw = nil
		}
	case []Loop:
		for i := range x {
			x[i].Raw = nil
		}
	case *EarnTxResponse:
		x.Raw = nil
	}
	return v
}
