package market

import (
	"strconv"
)

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

// enumName returns names[v], the name of the known value v (the known values of an enum being 0, 1,
// … in order), or formats v as enumString does.
func enumName(field string, names []string, v int64) string {
	if v >= 0 && v < int64(len(names)) {
		return names[v]
	}
	return enumString(field, v)
}

// DurationType is the unit of a strategy or ledger duration (market-facts.md, confidence H).
type DurationType int32

// Known duration types.
const (
	DurationDays    DurationType = 0
	DurationWeeks   DurationType = 1
	DurationMonths  DurationType = 2
	DurationMinutes DurationType = 3
	DurationYears   DurationType = 4
)

// String returns "days", "weeks", "months", "minutes", "years", or "durationType(N)".
func (d DurationType) String() string {
	return enumName("durationType", []string{"days", "weeks", "months", "minutes", "years"}, int64(d))
}

// FilterType is the loans-info filterType.
type FilterType int32

// FilterActive selects active loans (market-facts.md, confidence L; see docs/assumptions.md).
const FilterActive FilterType = 0

// String returns "active" or "filterType(N)".
func (f FilterType) String() string { return enumName("filterType", []string{"active"}, int64(f)) }

// SortSide is a sort direction: 0 ascending, 1 descending (spec E3 sortSide, E5 sortDirection).
type SortSide int32

// Sort directions.
const (
	SortAscending  SortSide = 0
	SortDescending SortSide = 1
)

// String returns "ascending", "descending", or "sortSide(N)".
func (s SortSide) String() string {
	return enumName("sortSide", []string{"ascending", "descending"}, int64(s))
}
