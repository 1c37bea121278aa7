package market

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidRequest is wrapped by errors for requests that must not be sent
// (missing required fields, negative values, a bad idempotency key, no
// wallet for a transaction-building call).
var ErrInvalidRequest = errors.New("invalid request")

// required returns an error naming each empty field; pairs are name, value.
func required(pairs ...string) error {
	var errs []error
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			errs = append(errs, fmt.Errorf("%s is required", pairs[i]))
		}
	}
	return errors.Join(errs...)
}

// nonNegative returns an error naming each negative value; pairs are name, pointer (nil skipped).
func nonNegative[T ~int | ~int32 | ~int64](name string, v *T) error {
	if v != nil && *v < 0 {
		return fmt.Errorf("%s must be >= 0, got %d", name, *v)
	}
	return nil
}

// Validate checks E1's required members and non-negative numbers.
func (r StrategyUpdateRequest) Validate() error {
	errs := []error{required("strategy", r.Strategy)}
	if t := r.CollateralTerms; t != nil {
		errs = append(errs, t.validate())
	}
	if p := r.UpdateParams; p != nil {
		errs = append(errs, p.validate())
	}
	return errors.Join(errs...)
}

// Validate checks the collateral maps: keys present, duration keys and cBPS values well-formed.
func (t CollateralTerms) validate() error {
	var errs []error
	for id, add := range t.AddCollateral {
		errs = append(errs, required("addCollateral key", id), durationMap("addCollateral["+id+"].durationsAndApys", add.DurationsAndApys, true))
		if add.MarketInformation != nil {
			errs = append(errs, add.MarketInformation.validate())
		}
	}
	for id, rm := range t.RemoveCollateral {
		errs = append(errs, required("removeCollateral key", id))
		if len(rm.Durations) == 0 {
			errs = append(errs, fmt.Errorf("removeCollateral[%s].durations is required", id))
		}
		for _, d := range rm.Durations {
			errs = append(errs, d.Validate())
		}
	}
	for _, a := range t.UpdateAssetAllocation {
		errs = append(errs, required("updateAssetAllocation.assetIdentifier", a.AssetIdentifier,
			"updateAssetAllocation.maxAllocationPct", a.MaxAllocationPct))
	}
	for id, u := range t.UpdateCollateral {
		errs = append(errs, required("updateCollateral key", id), durationMap("updateCollateral["+id+"].apyUpdate", u.ApyUpdate, false))
		if u.LtvUpdate != nil {
			errs = append(errs, u.LtvUpdate.validate())
		}
	}
	return errors.Join(errs...)
}

// durationMap checks a duration-key → cBPS-string map.
func durationMap(name string, m map[string]string, needed bool) error {
	if needed && len(m) == 0 {
		return fmt.Errorf("%s is required", name)
	}
	terms, err := ParseDurationAPYs(m)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for d, apy := range terms {
		if apy < 0 {
			return fmt.Errorf("%s: apy of %s must be >= 0", name, d)
		}
	}
	return nil
}

// Validate checks an asset-data update.
func (a ParsedUpdateAssetData) validate() error {
	return errors.Join(required("assetIdentifier", a.AssetIdentifier),
		nonNegative("ltv", a.Ltv), nonNegative("liquidationThreshold", a.LiquidationThreshold),
		nonNegative("maxAge", a.MaxAge), nonNegative("maxUncertainty", a.MaxUncertainty),
		nonNegative("oracleType", a.OracleType))
}

// Validate checks updateParams' non-negative members.
func (p UpdateParams) validate() error {
	var yield error
	if p.ExternalYieldSource != nil {
		yield = nonNegative("newExternalYieldSource", &p.ExternalYieldSource.NewExternalYieldSource)
	}
	return errors.Join(yield, nonNegative("interestFee", p.InterestFee),
		nonNegative("liquidityBuffer", p.LiquidityBuffer), nonNegative("originationCap", p.OriginationCap),
		nonNegative("originationFee", p.OriginationFee), nonNegative("principalFee", p.PrincipalFee))
}

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
