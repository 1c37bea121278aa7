package market

// PnL is a loan item's PnL details, filled when the loans-info request sets includePnl.
type PnL struct {
	CollateralPnl                        float64                    `json:"collateralPnl"`
	CollateralPnlPctChange               float64                    `json:"collateralPnlPctChange"`
	InitialUserCollateralContribution    float64                    `json:"initialUserCollateralContribution"`
	InitialUserCollateralContributionUsd float64                    `json:"initialUserCollateralContributionUsd"`
	NetCollateralInflow                  float64                    `json:"netCollateralInflow"`
	NetCollateralUsdInflow               float64                    `json:"netCollateralUsdInflow"`
	NetPrincipalInflow                   float64                    `json:"netPrincipalInflow"`
	NetPrincipalUsdInflow                float64                    `json:"netPrincipalUsdInflow"`
	TokenUsdPnl                          float64                    `json:"tokenUsdPnl"`
	UsdPnl                               float64                    `json:"usdPnl"`
	UsdPnlPctChange                      float64                    `json:"usdPnlPctChange"`
	Markers                              []PnLMarker                `json:"markers"`
	PnlData                              Series[PnLPoint]           `json:"pnlData"`
	PositionValueData                    Series[PositionValuePoint] `json:"positionValueData"`
	RateHistoryData                      Series[RatePoint]          `json:"rateHistoryData"`
}

// Series is a PnL time series: an object holding dataPoints.
type Series[T any] struct {
	DataPoints []T `json:"dataPoints"`
}

// MarkerRollover is the PnL marker type of a loan rollover.
const MarkerRollover = "rollover"

// PnLMarker marks an event on a loan's PnL timeline, such as a rollover.
type PnLMarker struct {
	Date     float64        `json:"date"`
	Type     string         `json:"type"`
	Metadata MarkerMetadata `json:"metadata"`
}

// MarkerMetadata is a PnL marker's metadata.
type MarkerMetadata struct {
	NewCollateralMint      string `json:"newCollateralMint"`
	PreviousCollateralMint string `json:"previousCollateralMint"`
}

// PnLPoint is one point of pnlData.
type PnLPoint struct {
	Date                             float64 `json:"date"`
	CollateralPrice                  float64 `json:"collateralPrice"`
	CollateralValueUsd               float64 `json:"collateralValueUsd"`
	IsProjection                     bool    `json:"isProjection"`
	NetCollateralTransferTokenAmount float64 `json:"netCollateralTransferTokenAmount"`
	NetCollateralTransferUsdAmount   float64 `json:"netCollateralTransferUsdAmount"`
	NetPositionValueTokenAmount      float64 `json:"netPositionValueTokenAmount"`
	NetPositionValueUsd              float64 `json:"netPositionValueUsd"`
	PrincipalValueUsd                float64 `json:"principalValueUsd"`
	TokenPnl                         float64 `json:"tokenPnl"`
	UsdPnl                           float64 `json:"usdPnl"`
}

// PositionValuePoint is one point of positionValueData.
type PositionValuePoint struct {
	CollateralMint              string  `json:"collateralMint"`
	Date                        float64 `json:"date"`
	CollateralTokenAmount       float64 `json:"collateralTokenAmount"`
	CollateralTokenAmountOfDebt float64 `json:"collateralTokenAmountOfDebt"`
	CollateralValueUsd          float64 `json:"collateralValueUsd"`
	IsProjection                bool    `json:"isProjection"`
	NetPositionValueTokenAmount float64 `json:"netPositionValueTokenAmount"`
	NetPositionValueUsd         float64 `json:"netPositionValueUsd"`
	PrincipalValueUsd           float64 `json:"principalValueUsd"`
}

// RatePoint is one point of rateHistoryData. APYs are fractions.
type RatePoint struct {
	CollateralMint string  `json:"collateralMint"`
	Date           float64 `json:"date"`
	BorrowApy      float64 `json:"borrowApy"`
	CollateralApy  float64 `json:"collateralApy"`
	IsProjection   bool    `json:"isProjection"`
	NetApy         float64 `json:"netApy"`
}
