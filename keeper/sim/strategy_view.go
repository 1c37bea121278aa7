package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// strategyView is one strategy's state and balances at a snapshot.
type strategyView struct {
	info     *programs.Strategy
	st       *state.Strategy
	idle     uint64
	deployed uint64
	interest uint64
	ips      float64
	alloc    map[string]uint64 // collateral identifier → principal lent against it
}

// tvl returns idle + external + deployed + outstanding interest.
func (v *strategyView) tvl() uint64 {
	return v.idle + v.st.ExternalYieldAmount + v.deployed + v.interest
}

// strategyViews reads every strategy and adds up its loans. The caller holds the market's lock.
func (s *views) strategyViews(now int64) (map[solana.PublicKey]*strategyView, error) {
	out := map[solana.PublicKey]*strategyView{}
	for _, info := range s.w.Strategies {
		st, err := s.accts.strategy(info)
		if err != nil {
			return nil, err
		}
		out[info.Address] = &strategyView{info: info, st: st, alloc: map[string]uint64{},
			idle: s.chain.State.TokenBalance(info.Address, info.Mint.Address)}
	}
	for _, l := range s.w.Loans {
		st, err := s.accts.loan(l)
		if err != nil {
			return nil, err
		}
		addLoanToStrategies(out, st, now)
	}
	return out, nil
}

// addLoanToStrategies adds a loan's ledgers to their strategies' balances; a ledger's principal is
// attributed to the loan's collateral by the ledger's weights.
func addLoanToStrategies(views map[solana.PublicKey]*strategyView, st *state.Loan, now int64) {
	if st.Closed {
		return
	}
	for _, l := range st.Ledgers {
		v, ok := views[solana.MustPublicKeyFromBase58(l.Strategy)]
		if !ok {
			continue
		}
		out := l.Outstanding()
		v.deployed += out
		v.interest += l.InterestAt(now)
		if now < l.EndTime {
			v.ips += l.InterestPerSecond()
		}
		var total int64
		for _, w := range l.Weights {
			total += w
		}
		for i, col := range st.Collateral {
			if i < len(l.Weights) && total > 0 {
				v.alloc[col.AssetIdentifier] += uint64(float64(out) * float64(l.Weights[i]) / float64(total))
			}
		}
	}
}

// record returns the vault record of a vault over its strategy view.
func (v *strategyView) record(vault *programs.Vault, includeRewards bool) apiwire.Vault {
	out := apiwire.Vault{
		Address: vault.Address.String(), PrincipalMint: v.info.Mint.Address.String(),
		VaultStrategy: apiwire.VaultStrategy{Strategy: apiwire.StrategyState{
			Address: v.info.Address.String(), Authority: v.st.Authority, TokenBalance: apiwire.Amount(v.idle),
			ExternalYieldAmount: apiwire.Amount(v.st.ExternalYieldAmount), CurrentDeployedAmount: apiwire.Amount(v.deployed),
			OutstandingInterestAmount: apiwire.Amount(v.interest), InterestPerSecond: apiwire.Number(v.ips),
			OriginationsEnabled: v.st.OriginationsEnabled,
		}, CollateralTerms: v.terms()},
		ExternalYieldInfo: &apiwire.ExternalYieldInfo{Apy: apiwire.Number(vault.ExternalAPY)},
	}
	if includeRewards {
		out.VaultRewardsSchedule = []apiwire.RewardSchedule{}
		for _, r := range vault.Rewards {
			rs := apiwire.RewardSchedule{RewardStartTime: apiwire.UnixTime(r.Start), RewardEndTime: apiwire.UnixTime(r.End),
				EmissionsPerSecond: apiwire.Number(r.EmissionsPerSecond)}
			if !r.Mint.IsZero() {
				rs.RewardMint = r.Mint.String()
			}
			out.VaultRewardsSchedule = append(out.VaultRewardsSchedule, rs)
		}
	}
	return out
}

// terms returns the strategy's collateral terms with their current allocations.
func (v *strategyView) terms() []apiwire.CollateralTerm {
	out := make([]apiwire.CollateralTerm, 0, len(v.st.Terms))
	for _, t := range v.st.Terms {
		apys := make(map[string]apiwire.CBPS, len(t.Apys))
		for k, a := range t.Apys {
			apys[k] = apiwire.CBPS(a)
		}
		out = append(out, apiwire.CollateralTerm{AssetIdentifier: t.AssetIdentifier, DurationsAndApys: apys,
			MaxAllocationPct: t.MaxAllocationPct, CurrentAllocation: apiwire.Amount(v.alloc[t.AssetIdentifier])})
	}
	return out
}
