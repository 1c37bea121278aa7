package policies

// Kind is what a policy does.
type Kind string

// The policy kinds.
const (
	// KindRepay repays part of a loan when its health falls (E2 build, repay step).
	KindRepay Kind = "repay"
	// KindRebalance moves a dex-a CLMM collateral position to a new tick range (E4).
	KindRebalance Kind = "rebalance"
	// KindClaimFees claims the fees of a dex-b CLMM collateral position (E8).
	KindClaimFees Kind = "claim-fees"
	// KindClaimWithdrawals claims fully filled earn withdrawal requests (E10).
	KindClaimWithdrawals Kind = "claim-withdrawals"
	// KindStrategyUpdate keeps a strategy's collateral terms where its rules say (E1).
	KindStrategyUpdate Kind = "strategy-update"
	// KindStrategyWithdraw sweeps a strategy's idle principal above a buffer (E9).
	KindStrategyWithdraw Kind = "strategy-withdraw"
	// KindAlert sends a notification and builds no transaction.
	KindAlert Kind = "alert"
)

// Kinds lists every kind, in documentation order.
var Kinds = []Kind{KindRepay, KindRebalance, KindClaimFees, KindClaimWithdrawals, KindStrategyUpdate, KindStrategyWithdraw, KindAlert}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if v == k {
			return true
		}
	}
	return false
}

// Writes reports whether the kind builds transactions (every kind but alert).
func (k Kind) Writes() bool { return k != KindAlert }

// Target names what a policy evaluates one by one.
type Target string

// The target types.
const (
	// TargetLoans are loans; the target key is the loan address.
	TargetLoans Target = "loans"
	// TargetPositions are CLMM collateral positions; the key is the position mint.
	TargetPositions Target = "positions"
	// TargetWithdrawals are earn withdrawal requests; the key is the request id.
	TargetWithdrawals Target = "withdrawals"
	// TargetVaults are lending vaults; the key is the vault address.
	TargetVaults Target = "vaults"
)

// targets lists the target types an alert may select.
var targets = []Target{TargetLoans, TargetPositions, TargetWithdrawals, TargetVaults}

// target returns the target type of a kind; an alert names its own.
func (k Kind) target() Target {
	switch k {
	case KindRepay:
		return TargetLoans
	case KindRebalance, KindClaimFees:
		return TargetPositions
	case KindClaimWithdrawals:
		return TargetWithdrawals
	case KindStrategyUpdate, KindStrategyWithdraw:
		return TargetVaults
	}
	return ""
}
