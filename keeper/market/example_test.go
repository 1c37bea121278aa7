package market_test

import (
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

func ExampleStrategyDuration_Key() {
	d := market.StrategyDuration{DurationType: market.DurationDays, Duration: 7}
	fmt.Println(d.Key())
	fmt.Println(d)
	// Output:
	// {"durationType":0,"duration":7}
	// 7 days
}

func ExampleDurationAPYs() {
	terms := market.DurationAPYs(map[market.StrategyDuration]market.CBPS{
		{DurationType: market.DurationWeeks, Duration: 2}: market.CBPSFromFraction(0.085),
	})
	fmt.Println(terms)
	// Output: map[{"durationType":1,"duration":2}:85000]
}

func ExampleComputeVaultMetrics() {
	v := market.Vault{
		VaultStrategy: market.VaultStrategy{Strategy: market.StrategyState{
			TokenBalance: 600_000_000, CurrentDeployedAmount: 400_000_000, InterestPerSecond: 2,
		}},
		VaultRewardsSchedule: []market.RewardSchedule{{
			RewardMint: "RewardMint", RewardStartTime: 0, RewardEndTime: 2_000_000_000, EmissionsPerSecond: 1e9,
		}},
	}
	// A $0.50 reward token and $1 principal, both with 6 decimals.
	price := market.RewardPrice(0.5, 6, 1, 6)
	m := market.ComputeVaultMetrics(v, time.Unix(1_700_000_000, 0), func(string) (float64, bool) { return price, true })
	fmt.Printf("tvl %.0f lending %.6f rewards %.6f total %.6f\n", m.TVL, m.LendingAPY, m.RewardsAPY, m.TotalAPY)
	// Output: tvl 1000000000 lending 0.063072 rewards 0.015768 total 0.078840
}
