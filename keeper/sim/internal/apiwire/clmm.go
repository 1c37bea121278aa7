package apiwire

// ClaimFeesRequest is the body of E8 (POST markets/creditbook/collateral/dex-b/claim_fees).
type ClaimFeesRequest struct {
	Loan         string `json:"loan"`
	PositionMint string `json:"positionMint"`
}

// LiquidityTransfer is the Liquidity variant of TransferMode; slippage in basis points.
type LiquidityTransfer struct {
	SlippageToleranceBps int `json:"slippageToleranceBps"`
}

// TransferMode is the inner transferParams object; Liquidity is the only variant the spec shows.
type TransferMode struct {
	Liquidity *LiquidityTransfer `json:"Liquidity,omitempty"`
}

// TransferParams is E4's transferParams. LiquidityAmount is the position's CLMM liquidity (which the
// dex stores as u128; values above 2^64−1 are not representable here).
type TransferParams struct {
	AssetIndexGuidance []int        `json:"assetIndexGuidance,omitempty"`
	CollateralIndex    int          `json:"collateralIndex"`
	LiquidityAmount    Amount       `json:"liquidityAmount"`
	TickLowerIndex     int32        `json:"tickLowerIndex"`
	TickUpperIndex     int32        `json:"tickUpperIndex"`
	Variant            TransferMode `json:"transferParams"`
}

// TransferPositionRequest is the body of E4 (POST markets/creditbook/collateral/dex-a/transfer_position):
// it moves a dex-a CLMM collateral position of a loan to a new tick range.
type TransferPositionRequest struct {
	Loan         string `json:"loan"`
	PositionMint string `json:"positionMint"`
	// SlippageDecimals is a decimal percentage (assumed: 1 = 1 %; see docs/assumptions.md).
	SlippageDecimals float64        `json:"slippageDecimals"`
	TransferParams   TransferParams `json:"transferParams"`
}
