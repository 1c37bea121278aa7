package policies

import "math"

// ClaimFeesParams are the params of a claim-fees policy (dex-b positions).
// Either threshold reached triggers a claim.
type ClaimFeesParams struct {
	// MinFees0 is the least fees owed in token 0 (smallest units) worth a
	// claim; 0 ignores token 0.
	MinFees0 uint64 `yaml:"min_fees_0"`
	// MinFees1 is the same for token 1.
	MinFees1 uint64 `yaml:"min_fees_1"`
	// MinValueUSD is the least USD value of the fees owed worth a claim;
	// the value must also exceed the most the claim can cost (fee, tip and
	// rent, in SOL at its price). 0 ignores value.
	MinValueUSD float64 `yaml:"min_value_usd"`
}

// Kind returns KindClaimFees.
func (*ClaimFeesParams) Kind() Kind { return KindClaimFees }

func (c *ClaimFeesParams) check(b *builder, _ *Policy) {
	if !(c.MinValueUSD >= 0) || math.IsInf(c.MinValueUSD, 0) {
		b.fail([]any{"params", "min_value_usd"}, "params.min_value_usd must be a USD amount of 0 or more, got %v", c.MinValueUSD)
	}
	if c.MinFees0 == 0 && c.MinFees1 == 0 && !(c.MinValueUSD > 0) {
		b.fail([]any{"params"}, "params: set min_fees_0, min_fees_1 or min_value_usd (any of them) to a positive amount")
	}
}

// ClaimWithdrawalsParams are the params of a claim-withdrawals policy: it
// has none; every fully filled request of the wallet in the selected earn
// vaults is claimed.
type ClaimWithdrawalsParams struct{}

// Kind returns KindClaimWithdrawals.
func (*ClaimWithdrawalsParams) Kind() Kind { return KindClaimWithdrawals }

func (*ClaimWithdrawalsParams) check(*builder, *Policy) {}

// StrategyWithdrawParams are the params of a strategy-withdraw policy.
// Amounts are in the vault's principal mint: smallest units, or whole
// tokens with its symbol.
type StrategyWithdrawParams struct {
	// Buffer is what stays idle in the strategy.
	Buffer Amount `yaml:"buffer"`
	// MinAmount is the least amount worth a withdrawal (default 1 unit).
	MinAmount Amount `yaml:"min_amount"`
}

// Kind returns KindStrategyWithdraw.
func (*StrategyWithdrawParams) Kind() Kind { return KindStrategyWithdraw }

func (s *StrategyWithdrawParams) check(b *builder, _ *Policy) {
	if !b.has("params", "buffer") {
		b.fail([]any{"params"}, "params.buffer is required: the idle amount to keep (0 sweeps everything)")
	}
	if !b.has("params", "min_amount") {
		s.MinAmount = UnitsOf(1)
	} else if s.MinAmount.isZero() {
		b.fail([]any{"params", "min_amount"}, "params.min_amount must be positive")
	}
}
