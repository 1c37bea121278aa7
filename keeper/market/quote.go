package market

import json "github.com/go-json-experiment/json/v1"

// QuoteRequest is the body of E6 (POST markets/quote/max). The client sends the configured wallet in
// the user-wallet header so that the quote is tailored to the caller's positions.
type QuoteRequest struct {
	CollateralFilter      []CollateralFilter `json:"collateralFilter"`
	Duration              int32              `json:"duration"`
	DurationType          DurationType       `json:"durationType"`
	PrincipalMint         string             `json:"principalMint"`
	ExcludedExternalYield []int32            `json:"excludedExternalYield,omitempty"`
	// StrategyCredit is passed through verbatim; its shape is not shown by the spec.
	StrategyCredit json.RawMessage `json:"strategyCredit,omitempty"`
}

// CollateralFilter is one collateral asset to quote for. Amount is in the collateral's smallest units.
type CollateralFilter struct {
	Amount        Amount    `json:"amount"`
	AssetData     AssetData `json:"assetData"`
	PriceOverride *float64  `json:"priceOverride,omitempty"`
}

// AssetData identifies a collateral asset; Spl is the only variant the spec shows.
type AssetData struct {
	Spl *SplAsset `json:"Spl,omitempty"`
}

// SplAsset is the Spl variant of AssetData.
type SplAsset struct {
	Mint string `json:"mint"`
}

// SplAssetData returns the AssetData of an SPL token mint.
func SplAssetData(mint string) AssetData { return AssetData{Spl: &SplAsset{Mint: mint}} }

// Quote is one E6 response element: the best quote for one collateral asset. Amount is the principal
// available (smallest units); Apy, Lqt and Ltv are centi-basis points.
type Quote struct {
	Amount               Amount `json:"amount"`
	Apy                  CBPS   `json:"apy"`
	CollateralIdentifier string `json:"collateralIdentifier"`
	Lqt                  CBPS   `json:"lqt"`
	Ltv                  CBPS   `json:"ltv"`
	Strategy             string `json:"strategy"`
}
