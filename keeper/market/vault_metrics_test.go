package market

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// near reports whether a and b agree to 1e-12 relative (or absolute near zero).
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestVaultMetrics(t *testing.T) {
	// The fixture vault (testdata/vaults_info.json), amounts in USDC smallest units (6 decimals):
	// tvl = 400e6 + 300e6 + 250e6 + 50e6 = 1e9.
	// lendingApy = (1.5·31,536,000 + 0.05·300e6) / 1e9 = (47,304,000 + 15,000,000) / 1e9 = 0.062304.
	// Reward: emissionsPerSecond 1e9 → 1 reward unit/s; price 0.5 principal units per reward unit
	// (a $0.50 6-decimal token against $1 USDC) → 31,536,000·0.5 / 1e9 = 0.015768.
	base := wantVaultsPage().Items[0]
	half := func(string) (float64, bool) { return 0.5, true }
	twoMints := base
	twoMints.VaultRewardsSchedule = append([]RewardSchedule{{RewardMint: "RewardMint2", RewardStartTime: 1700000000,
		RewardEndTime: 1800000000, EmissionsPerSecond: 2e9}}, base.VaultRewardsSchedule...)
	noExternal := base
	noExternal.ExternalYieldInfo = nil
	empty := base
	empty.VaultStrategy.Strategy = StrategyState{InterestPerSecond: 3}

	tests := []struct {
		name  string
		v     Vault
		now   int64
		price RewardPriceFunc
		want  VaultMetrics
	}{
		{"active reward", base, 1750000000, half,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, RewardsAPY: 0.015768, TotalAPY: 0.078072, ActiveSchedules: 1}},
		{"before start", base, 1699999999, half,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, TotalAPY: 0.062304}},
		{"at start", base, 1700000000, half,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, RewardsAPY: 0.015768, TotalAPY: 0.078072, ActiveSchedules: 1}},
		{"at end", base, 1800000000, half,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, RewardsAPY: 0.015768, TotalAPY: 0.078072, ActiveSchedules: 1}},
		{"after end", base, 1800000001, half,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, TotalAPY: 0.062304}},
		{"missing price", base, 1750000000, nil,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, TotalAPY: 0.062304, ActiveSchedules: 1,
				MissingPrices: []string{"RewardMint1"}}},
		{"NaN price is missing", base, 1750000000, func(string) (float64, bool) { return math.NaN(), true },
			VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, TotalAPY: 0.062304, ActiveSchedules: 1,
				MissingPrices: []string{"RewardMint1"}}},
		// Second schedule: 2 units/s at price 0.25 → 2·31,536,000·0.25 / 1e9 = 0.015768; sum 0.031536.
		{"two schedules", twoMints, 1750000000, func(m string) (float64, bool) {
			return map[string]float64{"RewardMint1": 0.5, "RewardMint2": 0.25}[m], true
		}, VaultMetrics{TVL: 1e9, LendingAPY: 0.062304, RewardsAPY: 0.031536, TotalAPY: 0.09384, ActiveSchedules: 2}},
		// No external yield info: 47,304,000 / 1e9.
		{"no external yield", noExternal, 1600000000, half,
			VaultMetrics{TVL: 1e9, LendingAPY: 0.047304, TotalAPY: 0.047304}},
		{"zero tvl", empty, 1750000000, half, VaultMetrics{ActiveSchedules: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeVaultMetrics(tc.v, time.Unix(tc.now, 0), tc.price)
			if !near(got.TVL, tc.want.TVL) || !near(got.LendingAPY, tc.want.LendingAPY) ||
				!near(got.RewardsAPY, tc.want.RewardsAPY) || !near(got.TotalAPY, tc.want.TotalAPY) ||
				got.ActiveSchedules != tc.want.ActiveSchedules || !reflect.DeepEqual(got.MissingPrices, tc.want.MissingPrices) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if total := TotalVaultAPY(tc.v, time.Unix(tc.now, 0), tc.price); !near(total, tc.want.TotalAPY) {
				t.Errorf("TotalVaultAPY = %v, want %v", total, tc.want.TotalAPY)
			}
			for _, f := range []float64{got.TVL, got.LendingAPY, got.RewardsAPY, got.TotalAPY} {
				if !finite(f) {
					t.Errorf("non-finite metric in %+v", got)
				}
			}
		})
	}
}

func TestRewardPrice(t *testing.T) {
	tests := []struct {
		name                   string
		rewardUSD, principaUSD float64
		rewardDec, princDec    int
		want                   float64
	}{
		// $0.50 token, 6 decimals, against $1 USDC, 6 decimals: 0.5 principal units per reward unit.
		{"same decimals", 0.5, 1, 6, 6, 0.5},
		// $2 token with 9 decimals: one unit is $2e-9 = 0.002 micro-USDC.
		{"reward has more decimals", 2, 1, 9, 6, 0.002},
		// $150 SOL-like principal (9 decimals), $3 reward (6 decimals): 3/150·10^3 = 20.
		{"principal has more decimals", 3, 150, 6, 9, 20},
		{"zero principal price", 3, 0, 6, 6, 0},
		{"NaN reward price", math.NaN(), 1, 6, 6, 0},
	}
	for _, tc := range tests {
		if got := RewardPrice(tc.rewardUSD, tc.rewardDec, tc.principaUSD, tc.princDec); !near(got, tc.want) {
			t.Errorf("%s: RewardPrice = %v, want %v", tc.name, got, tc.want)
		}
	}
}
