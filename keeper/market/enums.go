package market

import "strconv"

// The spec leaves the values of its integer-coded fields "not shown". Each is a named integer type that
// decodes any value; String names the values that are known (market-facts.md) and prints the field name
// and number otherwise, e.g. "loanStatus(3)".

// LoanStatus is a loan record's loanStatus. No values are public; decide from closed and the ledgers.
type LoanStatus int32

// LedgerStatus is a ledger record's status. No values are public.
type LedgerStatus int32

// AssetType is a collateral entry's assetType (and the loans-info assetTypes filter). No values are
// public; a collateral is LP/CLMM when assetIdentifier differs from assetMint.
type AssetType int32

// LoanType is a loan summary item's loanType. No values are public.
type LoanType int32

// OrderFundingType is the loans-info orderFundingTypes filter. No values are public.
type OrderFundingType int32

// SortType is the loans-info sort key. No values are public.
type SortType int32

// VaultSortKey is the vault-depositors sort key. No values are public.
type VaultSortKey int32

// StakeDuration is the vault-depositors stakeDuration filter. No values are public.
type StakeDuration int32

// PositionStatus is the vault-depositors position status filter. No values are public.
type PositionStatus int32

// OracleType is an asset-data update's oracleType. No values are public.
type OracleType int32

// String returns "loanStatus(N)".
func (v LoanStatus) String() string { return enumString("loanStatus", int64(v)) }

// String returns "status(N)".
func (v LedgerStatus) String() string { return enumString("status", int64(v)) }

// String returns "assetType(N)".
func (v AssetType) String() string { return enumString("assetType", int64(v)) }

// String returns "loanType(N)".
func (v LoanType) String() string { return enumString("loanType", int64(v)) }

// String returns "orderFundingTypes(N)".
func (v OrderFundingType) String() string { return enumString("orderFundingTypes", int64(v)) }

// String returns "sortType(N)".
func (v SortType) String() string { return enumString("sortType", int64(v)) }

// String returns "sort(N)".
func (v VaultSortKey) String() string { return enumString("sort", int64(v)) }

// String returns "stakeDuration(N)".
func (v StakeDuration) String() string { return enumString("stakeDuration", int64(v)) }

// String returns "positionStatus(N)".
func (v PositionStatus) String() string { return enumString("positionStatus", int64(v)) }

// String returns "oracleType(N)".
func (v OracleType) String() string { return enumString("oracleType", int64(v)) }

// enumString formats an integer enum value that has no known name.
func enumString(field string, v int64) string {
	return field + "(" + strconv.FormatInt(v, 10) + ")"
}
