package market

// HoldersRequest is the body of E7 (POST markets/collateral/holders/historical). RangeStart and
// RangeEnd are unix seconds. Mint is the collateral mint, or the pool id for CLMM/LP collateral.
// Pdas false keys the result by borrower wallet, true by loan address.
type HoldersRequest struct {
	Mint       string   `json:"mint"`
	RangeStart UnixTime `json:"rangeStart"`
	RangeEnd   UnixTime `json:"rangeEnd"`
	Pdas       bool     `json:"pdas"`
}

// CollateralHolder is one E7 response element: per holder, the integral of its collateral balance over
// the window in deposit-seconds (decimal-adjusted collateral units × seconds held).
type CollateralHolder struct {
	CollateralMint     string            `json:"collateralMint"`
	RangeStart         UnixTime          `json:"rangeStart"`
	RangeEnd           UnixTime          `json:"rangeEnd"`
	UserDepositSeconds map[string]Number `json:"userDepositSeconds"`
}
