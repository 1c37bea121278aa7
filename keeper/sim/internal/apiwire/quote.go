package apiwire

import "encoding/json"

// AssetData identifies a collateral asset; Spl is the only variant the spec shows.
type AssetData struct {
	Spl *SplAsset `json:"Spl,omitempty"`
}

// CollateralFilter is one collateral asset to quote for. Amount is in the collateral's smallest units.
type CollateralFilter struct {
	Amount        Amount    `json:"amount"`
	AssetData     AssetData `json:"assetData"`
	PriceOverride *float64  `json:"priceOverride,omitempty"`
}

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

// QuoteRequest is the body of E6 (POST markets/quote/max). The wallet comes in the HeaderWallet header.
type QuoteRequest struct {
	CollateralFilter      []CollateralFilter `json:"collateralFilter"`
	Duration              int32              `json:"duration"`
	DurationType          DurationType       `json:"durationType"`
	PrincipalMint         string             `json:"principalMint"`
	ExcludedExternalYield []int32            `json:"excludedExternalYield,omitempty"`
	// StrategyCredit is passed through verbatim; its shape is not shown by the spec.
	StrategyCredit json.RawMessage `json:"strategyCredit,omitempty"`
}

// SplAsset is the Spl variant of AssetData.
type SplAsset struct {
	Mint string `json:"mint"`
}
