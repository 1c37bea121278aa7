package market

import (
	"errors"
	"fmt"
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
