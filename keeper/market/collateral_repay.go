package market

import "fmt"

// CollateralRepayLayout is how keeper asks E2 for a repay paid from collateral. The spec names the
// steps (flashBorrow, swapCollateral, repay) and the params (collateralWithdrawalParams, cpiIxs,
// setupIxs, cpiLuts, setupLuts…) but not which params belong to which step, nor their order: this
// type is the one place that decides it (docs/assumptions.md, "Repay from collateral"), and config
// (market.collateral_repay) can override it where a deployment differs.
//
// With FlashBorrow (the default) the steps are
//
//	flashBorrow   {loan, repayParams: [{amount: debt, ledgerIndex}]}            the principal, lent
//	repay         {loan, repayParams: [{amount: debt, ledgerIndex}]}            the ledger, repaid
//	swapCollateral{loan, collateralWithdrawalParams: [{amount, collateralMint}],
//	               setupIxs, setupLuts, cpiIxs, cpiLuts, unifySetup: true}       withdraw, swap, pay the flash loan back
//
// so the repay comes before the withdrawal and the loan never dips toward liquidation; without it,
// swapCollateral comes first and repay last (the withdrawal then needs the loan healthy without the
// repay). The swap's setup instructions go in setupIxs, its swap and cleanup instructions in cpiIxs,
// and the aggregator's lookup tables in cpiLuts (or setupLuts when LutsInSetup).
type CollateralRepayLayout struct {
	// FlashBorrow flash-borrows the principal first so that the repay precedes the withdrawal.
	FlashBorrow bool `yaml:"flash_borrow"`
	// LutsInSetup passes the aggregator's lookup tables as setupLuts instead of cpiLuts.
	LutsInSetup bool `yaml:"luts_in_setup"`
	// SetupInCpi passes the swap's setup instructions at the head of cpiIxs instead of setupIxs.
	SetupInCpi bool `yaml:"setup_in_cpi"`
}

// DefaultCollateralRepayLayout returns the layout keeper assumes unless config says otherwise.
func DefaultCollateralRepayLayout() CollateralRepayLayout {
	return CollateralRepayLayout{FlashBorrow: true}
}

// CollateralRepay is one repay from collateral: Debt of ledger LedgerIndex repaid by selling Withdraw
// of CollateralMint through the aggregator's instructions.
type CollateralRepay struct {
	Loan           string
	LedgerIndex    int
	Debt           Amount
	CollateralMint string
	Withdraw       Amount
	// Setup, Swap and Luts are the aggregator's setup instructions, its swap (and cleanup)
	// instructions and its address lookup tables.
	Setup, Swap []Instruction
	Luts        []string
}

// Steps returns the E2 steps of r under layout l.
func (l CollateralRepayLayout) Steps(r CollateralRepay) ([]Step, error) {
	if r.Debt == 0 || r.Withdraw == 0 || r.CollateralMint == "" || len(r.Swap) == 0 {
		return nil, fmt.Errorf("collateral repay: debt, withdrawal, collateral mint and swap instructions are required")
	}
	repay := []RepayParam{{Amount: r.Debt, LedgerIndex: r.LedgerIndex}}
	unify := true // the sale is one transaction: the swap's setup runs in it, first
	swap := StepParams{Loan: r.Loan, CollateralWithdrawalParams: []CollateralWithdrawal{{Amount: r.Withdraw, CollateralMint: r.CollateralMint}}, UnifySetup: &unify}
	swap.SetupIxs, swap.CpiIxs = r.Setup, r.Swap
	if l.SetupInCpi {
		swap.SetupIxs, swap.CpiIxs = nil, append(append([]Instruction{}, r.Setup...), r.Swap...)
	}
	if l.LutsInSetup {
		swap.SetupLuts = r.Luts
	} else {
		swap.CpiLuts = r.Luts
	}
	repayStep := Step{Type: StepRepay, Params: StepParams{Loan: r.Loan, RepayParams: repay}}
	swapStep := Step{Type: StepSwapCollateral, Params: swap}
	if !l.FlashBorrow {
		return []Step{swapStep, repayStep}, nil
	}
	flash := Step{Type: StepFlashBorrow, Params: StepParams{Loan: r.Loan, RepayParams: repay}}
	return []Step{flash, repayStep, swapStep}, nil
}
