package apiwire

// The spec's integer-coded fields. The spec does not give their values; the ones named here are the
// simulator's (durationType's from the project's research on the live service, sortSide's from the spec).
type (
	AssetType        int32 // a collateral entry's assetType
	DurationType     int32 // the unit of a strategy duration
	FilterType       int32 // E3 filterType
	LedgerStatus     int32 // a ledger record's status
	LoanStatus       int32 // a loan record's loanStatus
	LoanType         int32 // a loan summary item's loanType
	OracleType       int32 // an asset-data update's oracleType
	OrderFundingType int32 // E3 orderFundingTypes
	PositionStatus   int32 // E5 status
	SortSide         int32 // 0 ascending, 1 descending (E3 sortSide, E5 sortDirection)
	SortType         int32 // E3 sortType
	StakeDuration    int32 // E5 stakeDuration
	VaultSortKey     int32 // E5 sort
)

// Units of a strategy duration.
const (
	DurationDays    DurationType = 0
	DurationWeeks   DurationType = 1
	DurationMonths  DurationType = 2
	DurationMinutes DurationType = 3
	DurationYears   DurationType = 4
)

// SortDescending is sortSide's descending order.
const SortDescending SortSide = 1
