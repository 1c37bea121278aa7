package market

import (
	"math"
	"slices"
	"time"
)

// SecondsPerYear is the spec's SECONDS_PER_YEAR for the metric formulas.
const SecondsPerYear = 31_536_000

// emissionsScale is the scale of emissionsPerSecond.
const emissionsScale = 1e9

// RewardPriceFunc returns the price of one smallest unit of a reward mint expressed in smallest units
// of the vault's principal ([RewardPrice] builds it from USD prices and decimals), or false when no
// price is known.
type RewardPriceFunc func(rewardMint string) (float64, bool)

// RewardPrice converts USD prices to the unit rewardsApy needs: principal smallest units per reward
// smallest unit = (rewardUSD / 10^rewardDecimals) / (principalUSD / 10^principalDecimals). TVL is in
// principal smallest units, so with this price the rewards ratio is unit-free. A non-positive or
// non-finite principal price gives 0.
func RewardPrice(rewardUSD float64, rewardDecimals int, principalUSD float64, principalDecimals int) float64 {
	if !(principalUSD > 0) || math.IsInf(principalUSD, 0) || !finite(rewardUSD) {
		return 0
	}
	return rewardUSD / principalUSD * math.Pow10(principalDecimals-rewardDecimals)
}

// VaultMetrics are a vault's metrics by the spec's Metric rules. APYs are fractions.
type VaultMetrics struct {
	// TVL is tokenBalance + externalYieldAmount + currentDeployedAmount + outstandingInterestAmount,
	// in principal smallest units.
	TVL        float64
	LendingAPY float64
	RewardsAPY float64
	TotalAPY   float64
	// ActiveSchedules counts reward schedules with start <= now <= end.
	ActiveSchedules int
	// MissingPrices lists the reward mints of active schedules that had no usable price; their
	// schedules are left out of RewardsAPY.
	MissingPrices []string
}

// ComputeVaultMetrics computes every metric of v at now. price may be nil (every active schedule then
// has a missing price). A zero TVL gives zero APYs, never NaN or infinity.
func ComputeVaultMetrics(v Vault, now time.Time, price RewardPriceFunc) VaultMetrics {
	m := VaultMetrics{TVL: VaultTVL(v.VaultStrategy.Strategy), LendingAPY: LendingAPY(v)}
	m.RewardsAPY, m.MissingPrices = RewardsAPY(v, now, price)
	m.ActiveSchedules = len(ActiveRewardSchedules(v, now))
	m.TotalAPY = m.LendingAPY + m.RewardsAPY
	return m
}

// VaultTVL returns tokenBalance + externalYieldAmount + currentDeployedAmount +
// outstandingInterestAmount in principal smallest units (as float64, so the sum cannot overflow).
func VaultTVL(s StrategyState) float64 {
	return s.TokenBalance.Float64() + s.ExternalYieldAmount.Float64() +
		s.CurrentDeployedAmount.Float64() + s.OutstandingInterestAmount.Float64()
}

// LendingAPY returns (interestPerSecond·SECONDS_PER_YEAR + externalYieldInfo.apy·externalYieldAmount)
// / vaultTvl. Interest and TVL are both in principal smallest units, so the ratio is unit-free. A
// missing externalYieldInfo counts as apy 0; a zero TVL gives 0.
func LendingAPY(v Vault) float64 {
	s := v.VaultStrategy.Strategy
	var extAPY float64
	if v.ExternalYieldInfo != nil {
		extAPY = v.ExternalYieldInfo.Apy.Fraction()
	}
	return ratio(s.InterestPerSecond.Float64()*SecondsPerYear+extAPY*s.ExternalYieldAmount.Float64(), VaultTVL(s))
}

// ActiveRewardSchedules returns the schedules with rewardStartTime <= now <= rewardEndTime (unix
// seconds), in order.
func ActiveRewardSchedules(v Vault, now time.Time) []RewardSchedule {
	t := UnixTimeOf(now)
	var out []RewardSchedule
	for _, s := range v.VaultRewardsSchedule {
		if s.RewardStartTime <= t && t <= s.RewardEndTime {
			out = append(out, s)
		}
	}
	return out
}

// RewardsAPY returns the sum over active schedules of (emissionsPerSecond / 1e9)·SECONDS_PER_YEAR·price
// / vaultTvl, and the reward mints (sorted, unique) whose price was missing, negative or not finite.
func RewardsAPY(v Vault, now time.Time, price RewardPriceFunc) (float64, []string) {
	tvl := VaultTVL(v.VaultStrategy.Strategy)
	var sum float64
	var missing []string
	for _, s := range ActiveRewardSchedules(v, now) {
		p, ok := lookupPrice(price, s.RewardMint)
		if !ok {
			missing = append(missing, s.RewardMint)
			continue
		}
		sum += ratio(s.EmissionsPerSecond.Float64()/emissionsScale*SecondsPerYear*p, tvl)
	}
	slices.Sort(missing)
	return sum, slices.Compact(missing)
}

// lookupPrice calls price and accepts only finite, non-negative values.
func lookupPrice(price RewardPriceFunc, mint string) (float64, bool) {
	if price == nil {
		return 0, false
	}
	p, ok := price(mint)
	return p, ok && finite(p) && p >= 0
}

// ratio returns num/den, or 0 when den is not positive or the result is not finite.
func ratio(num, den float64) float64 {
	if !(den > 0) {
		return 0
	}
	r := num / den
	if !finite(r) {
		return 0
	}
	return r
}

// finite reports whether f is neither NaN nor infinite.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// TotalVaultAPY returns lendingApy + rewardsApy; schedules with a missing price contribute nothing
// (use ComputeVaultMetrics to learn which).
func TotalVaultAPY(v Vault, now time.Time, price RewardPriceFunc) float64 {
	rewards, _ := RewardsAPY(v, now, price)
	return LendingAPY(v) + rewards
}
