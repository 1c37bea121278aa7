package apiwire

// AddCollateral adds a collateral to a strategy with its duration → APY terms. MarketInformation is
// ignored by the service for base vaults and custom strategies.
type AddCollateral struct {
	DurationsAndApys                 map[string]string      `json:"durationsAndApys"`
	ExternalMarketInformationAddress *string                `json:"externalMarketInformationAddress,omitempty"`
	MarketInformation                *ParsedUpdateAssetData `json:"marketInformation,omitempty"`
}

// AssetAllocation caps a collateral's share of the strategy. MaxAllocationPct is a decimal string
// passed through verbatim (its scale is not shown; see docs/assumptions.md).
type AssetAllocation struct {
	AssetIdentifier  string `json:"assetIdentifier"`
	MaxAllocationPct string `json:"maxAllocationPct"`
}

// CollateralParamsUpdate updates a collateral's APYs (duration key → cBPS string) and asset data.
type CollateralParamsUpdate struct {
	ApyUpdate map[string]string      `json:"apyUpdate,omitempty"`
	LtvUpdate *ParsedUpdateAssetData `json:"ltvUpdate,omitempty"`
}

// CollateralTerms is the collateralTerms member of a strategy update; every member is optional.
type CollateralTerms struct {
	AddCollateral         map[string]AddCollateral          `json:"addCollateral,omitempty"`
	RemoveCollateral      map[string]RemoveCollateral       `json:"removeCollateral,omitempty"`
	UpdateAssetAllocation []AssetAllocation                 `json:"updateAssetAllocation,omitempty"`
	UpdateCollateral      map[string]CollateralParamsUpdate `json:"updateCollateral,omitempty"`
}

// ExternalYieldSource selects a strategy's external yield source.
type ExternalYieldSource struct {
	NewExternalYieldSource int32 `json:"newExternalYieldSource"`
}

// ParsedUpdateAssetData is a per-collateral asset-data and oracle configuration update. Nil members
// are omitted. Ltv and LiquidationThreshold are centi-basis points.
type ParsedUpdateAssetData struct {
	AssetIdentifier            string      `json:"assetIdentifier"`
	Ltv                        *int32      `json:"ltv,omitempty"`
	LiquidationThreshold       *int32      `json:"liquidationThreshold,omitempty"`
	MaxAge                     *int32      `json:"maxAge,omitempty"`
	MaxUncertainty             *int32      `json:"maxUncertainty,omitempty"`
	MaxCollateralAllocationPct *string     `json:"maxCollateralAllocationPct,omitempty"`
	OracleAccount              *string     `json:"oracleAccount,omitempty"`
	OracleType                 *OracleType `json:"oracleType,omitempty"`
	QuoteMint                  *string     `json:"quoteMint,omitempty"`
	RemoveCollateral           *bool       `json:"removeCollateral,omitempty"`
}

// RemoveCollateral removes durations of a collateral from a strategy.
type RemoveCollateral struct {
	Durations                   []StrategyDuration `json:"durations"`
	RemoveFromMarketInformation bool               `json:"removeFromMarketInformation"`
}

// StrategyUpdateRequest is the body of E1 (POST markets/strategy/update). The collateral maps are keyed
// by the collateral's assetIdentifier; duration maps (DurationsAndApys, ApyUpdate) are keyed by
// [StrategyDuration.Key] and hold centi-basis points as decimal strings.
type StrategyUpdateRequest struct {
	Strategy        string           `json:"strategy"`
	CollateralTerms *CollateralTerms `json:"collateralTerms,omitempty"`
	UpdateParams    *UpdateParams    `json:"updateParams,omitempty"`
}

// UpdateParams is the updateParams member of a strategy update; nil members are omitted. Fee, buffer
// and cap units are not shown by the spec and are passed through.
type UpdateParams struct {
	ExternalYieldSource *ExternalYieldSource `json:"externalYieldSource,omitempty"`
	InterestFee         *int64               `json:"interestFee,omitempty"`
	LiquidityBuffer     *int64               `json:"liquidityBuffer,omitempty"`
	OriginationCap      *int64               `json:"originationCap,omitempty"`
	OriginationFee      *int64               `json:"originationFee,omitempty"`
	OriginationsEnabled *bool                `json:"originationsEnabled,omitempty"`
	PrincipalFee        *int64               `json:"principalFee,omitempty"`
}

// WithdrawStrategyRequest is the body of E9 (POST markets/strategy/withdraw). Amount is in the
// principal's smallest units; how it interacts with WithdrawAll is not shown by the spec, so callers
// set Amount to 0 when WithdrawAll is true.
type WithdrawStrategyRequest struct {
	Amount      Amount `json:"amount"`
	Strategy    string `json:"strategy"`
	WithdrawAll bool   `json:"withdrawAll"`
}
