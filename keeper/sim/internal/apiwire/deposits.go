package apiwire

// CollateralHolder is one E7 response element: per holder, the integral of its collateral balance over
// the window in deposit-seconds (decimal-adjusted collateral units × seconds held).
type CollateralHolder struct {
	CollateralMint     string            `json:"collateralMint"`
	RangeStart         UnixTime          `json:"rangeStart"`
	RangeEnd           UnixTime          `json:"rangeEnd"`
	UserDepositSeconds map[string]Number `json:"userDepositSeconds"`
}

// HoldersRequest is the body of E7 (POST markets/collateral/holders/historical). RangeStart and
// RangeEnd are unix seconds. Mint is the collateral mint, or the pool id for CLMM/LP collateral.
// Pdas false keys the result by borrower wallet, true by loan address.
type HoldersRequest struct {
	Mint       string   `json:"mint"`
	RangeStart UnixTime `json:"rangeStart"`
	RangeEnd   UnixTime `json:"rangeEnd"`
	Pdas       bool     `json:"pdas"`
}

// UserDeposit is one depositor's supplied amount (principal smallest units).
type UserDeposit struct {
	AmountSupplied Amount `json:"amountSupplied"`
	UserAddress    string `json:"userAddress"`
}

// VaultDeposits is one E5 response element: the depositors of one vault.
type VaultDeposits struct {
	VaultAddress string        `json:"vaultAddress"`
	UserDeposits []UserDeposit `json:"userDeposits"`
}

// VaultDepositsQuery is the body of E5 (POST markets/lending_vaults/deposits); every member is an
// optional filter and nil members are omitted.
type VaultDepositsQuery struct {
	VaultAddresses []string        `json:"vaultAddresses,omitempty"`
	LpMints        []string        `json:"lpMints,omitempty"`
	PrincipalMints []string        `json:"principalMints,omitempty"`
	UserAddress    string          `json:"userAddress,omitempty"`
	Page           *int            `json:"page,omitempty"`
	PageSize       *int            `json:"pageSize,omitempty"`
	Sort           *VaultSortKey   `json:"sort,omitempty"`
	SortDirection  *SortSide       `json:"sortDirection,omitempty"`
	StakeDuration  *StakeDuration  `json:"stakeDuration,omitempty"`
	Status         *PositionStatus `json:"status,omitempty"`
}
