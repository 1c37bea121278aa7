package market

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
	switch d {
	case DurationDays:
		return "days"
	case DurationWeeks:
		return "weeks"
	case DurationMonths:
		return "months"
	case DurationMinutes:
		return "minutes"
	case DurationYears:
		return "years"
	}
	return enumString("durationType", int64(d))
}

// FilterType is the loans-info filterType.
type FilterType int32

// FilterActive selects active loans (market-facts.md, confidence L; see docs/assumptions.md).
const FilterActive FilterType = 0

// String returns "active" or "filterType(N)".
func (f FilterType) String() string {
	if f == FilterActive {
		return "active"
	}
	return enumString("filterType", int64(f))
}

// SortSide is a sort direction: 0 ascending, 1 descending (spec E3 sortSide, E5 sortDirection).
type SortSide int32

// Sort directions.
const (
	SortAscending  SortSide = 0
	SortDescending SortSide = 1
)

// String returns "ascending", "descending", or "sortSide(N)".
func (s SortSide) String() string {
	switch s {
	case SortAscending:
		return "ascending"
	case SortDescending:
		return "descending"
	}
	return enumString("sortSide", int64(s))
}
