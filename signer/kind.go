package signer

// Kind is an action kind; the guard's allowlists and permissions are per kind.
type Kind string

// The action kinds keeper signs for.
const (
	KindRepay Kind = "repay"
	// KindRepayCollateral is a repay paid by selling collateral through a DEX
	// aggregator (rules_swap.go): the only kind whose allowlist should carry
	// the aggregator's programs (GuardConfig.ExtraPrograms).
	KindRepayCollateral  Kind = "repay-collateral"
	KindRebalance        Kind = "rebalance"
	KindClaimFees        Kind = "claim-fees"
	KindClaimWithdrawals Kind = "claim-withdrawals"
	KindStrategyUpdate   Kind = "strategy-update"
	KindStrategyWithdraw Kind = "strategy-withdraw"
	KindTip              Kind = "tip"
)

// Kinds returns every action kind.
func Kinds() []Kind {
	return []Kind{KindRepay, KindRepayCollateral, KindRebalance, KindClaimFees, KindClaimWithdrawals,
		KindStrategyUpdate, KindStrategyWithdraw, KindTip}
}

// permissions are what a kind may do with our wallet at the top level,
// beyond paying fees, funding new accounts and calling allowlisted programs.
type permissions struct {
	// tokenOut allows Token/Token-2022 Transfer, TransferChecked, Approve and
	// ApproveChecked with our wallet as authority, within the mint bounds.
	tokenOut bool
	// wrapSOL allows a System transfer into our own wrapped-SOL associated
	// token account, counted against the wrapped-SOL mint bound.
	wrapSOL bool
	// tip allows System transfers to the action's tip accounts, within the
	// maximum tip.
	tip bool
}

// kindPermissions is the fixed table of what each kind may do. Only a repay
// spends tokens at the top level (at most its amount, per the bounds); only a
// tip sends SOL to someone else. No kind may burn, set an authority, or close
// an account to a stranger.
var kindPermissions = map[Kind]permissions{
	KindRepay:            {tokenOut: true, wrapSOL: true},
	KindRepayCollateral:  {tokenOut: true, wrapSOL: true},
	KindRebalance:        {},
	KindClaimFees:        {},
	KindClaimWithdrawals: {},
	KindStrategyUpdate:   {},
	KindStrategyWithdraw: {},
	KindTip:              {tip: true},
}
