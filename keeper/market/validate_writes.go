package market

import (
	"errors"
	"fmt"
	"math"
)

// Validate checks that E2 has steps and each step a type.
func (r BuildLoanRequest) Validate() error {
	if len(r.Steps) == 0 {
		return errors.New("steps is required")
	}
	for i, s := range r.Steps {
		if s.Type == "" {
			return fmt.Errorf("steps[%d].type is required", i)
		}
	}
	return nil
}

// Validate checks E4's identifiers, tick range and slippage.
func (r TransferPositionRequest) Validate() error {
	var errs []error
	errs = append(errs, required("loan", r.Loan, "positionMint", r.PositionMint))
	if r.TransferParams.TickLowerIndex >= r.TransferParams.TickUpperIndex {
		errs = append(errs, fmt.Errorf("tickLowerIndex %d must be below tickUpperIndex %d",
			r.TransferParams.TickLowerIndex, r.TransferParams.TickUpperIndex))
	}
	if r.SlippageDecimals < 0 || math.IsNaN(r.SlippageDecimals) || math.IsInf(r.SlippageDecimals, 0) {
		errs = append(errs, errors.New("slippageDecimals must be a finite number >= 0"))
	}
	if l := r.TransferParams.Variant.Liquidity; l != nil && l.SlippageToleranceBps < 0 {
		errs = append(errs, errors.New("slippageToleranceBps must be >= 0"))
	}
	return errors.Join(errs...)
}

// Validate checks E8's identifiers.
func (r ClaimFeesRequest) Validate() error {
	return required("loan", r.Loan, "positionMint", r.PositionMint)
}

// Validate checks E9: a strategy, and a positive amount unless withdrawing all.
func (r WithdrawStrategyRequest) Validate() error {
	if err := required("strategy", r.Strategy); err != nil {
		return err
	}
	if r.Amount == 0 && !r.WithdrawAll {
		return errors.New("amount must be positive unless withdrawAll is set")
	}
	return nil
}

// Validate checks E10's required members.
func (r WithdrawClaimRequest) Validate() error {
	return required("address", r.Address, "wallet", r.Wallet, "requestId", r.RequestID)
}

// Validate checks the withdraw-request builder's members.
func (r EarnWithdrawRequest) Validate() error {
	if err := required("address", r.Address, "wallet", r.Wallet); err != nil {
		return err
	}
	if r.Amount == 0 {
		return errors.New("amount must be positive")
	}
	return nil
}

// Validate checks E6's principal mint, duration and collateral list.
func (r QuoteRequest) Validate() error {
	errs := []error{required("principalMint", r.PrincipalMint),
		StrategyDuration{DurationType: r.DurationType, Duration: r.Duration}.Validate()}
	if len(r.CollateralFilter) == 0 {
		errs = append(errs, errors.New("collateralFilter is required"))
	}
	return errors.Join(errs...)
}

// validatePage checks optional page and page-size members.
func validatePage(page, size *int) error {
	return errors.Join(nonNegative("page", page), nonNegative("pageSize", size))
}

// Validate checks E3's paging and sort members.
func (q LoansQuery) Validate() error {
	return errors.Join(validatePage(q.Page, q.PageSize), nonNegative("sortSide", q.SortSide),
		nonNegative("sortType", q.SortType))
}

// Validate checks E5's paging and filter members.
func (q VaultDepositsQuery) Validate() error {
	return errors.Join(validatePage(q.Page, q.PageSize), nonNegative("sort", q.Sort),
		nonNegative("sortDirection", q.SortDirection), nonNegative("stakeDuration", q.StakeDuration),
		nonNegative("status", q.Status))
}

// Validate checks E6's paging members.
func (q VaultsQuery) Validate() error { return validatePage(q.Page, q.PageSize) }

// Validate checks E7's mint and range.
func (r HoldersRequest) Validate() error {
	if err := required("mint", r.Mint); err != nil {
		return err
	}
	if r.RangeEnd < r.RangeStart {
		return errors.New("rangeEnd is before rangeStart")
	}
	return nil
}

// Validate checks the earn position read's address and wallet.
func (r EarnPositionRequest) Validate() error {
	return required("address", r.Address, "wallet", r.Wallet)
}

// Validate checks the withdrawal queue read's address.
func (r WithdrawalQueueRequest) Validate() error { return required("address", r.Address) }
