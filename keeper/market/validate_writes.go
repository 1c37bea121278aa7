package market

import (
	"errors"
	"fmt"
	"math"
)

// validate checks that E2 has steps and each step a type.
func (r BuildLoanRequest) validate() error {
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

// validate checks E4's identifiers, tick range and slippage.
func (r TransferPositionRequest) validate() error {
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

// validate checks E8's identifiers.
func (r ClaimFeesRequest) validate() error {
	return required("loan", r.Loan, "positionMint", r.PositionMint)
}

// validate checks E9: a strategy, and a positive amount unless withdrawing all.
func (r WithdrawStrategyRequest) validate() error {
	if err := required("strategy", r.Strategy); err != nil {
		return err
	}
	if r.Amount == 0 && !r.WithdrawAll {
		return errors.New("amount must be positive unless withdrawAll is set")
	}
	return nil
}

// validate checks E10's required members.
func (r WithdrawClaimRequest) validate() error {
	return required("address", r.Address, "wallet", r.Wallet, "requestId", r.RequestID)
}

// validate checks the withdraw-request builder's members.
func (r EarnWithdrawRequest) validate() error {
	if err := required("address", r.Address, "wallet", r.Wallet); err != nil {
		return err
	}
	if r.Amount == 0 {
		return errors.New("amount must be positive")
	}
	return nil
}

// validate checks E6's principal mint, duration and collateral list.
func (r QuoteRequest) validate() error {
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
