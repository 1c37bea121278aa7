package policies

import "fmt"

// refinanceUnknown says why e's refinance_expected is unknown, or "" when
// it is known. keeper asks for no quote against pool (CLMM) collateral (E6
// names a collateral by SPL mint, and a pool collateral's identifier is its
// pool id), so when no quote against the loan's token collateral shows the
// loan refinancing, whether a quote against its pool collateral would is
// not known: false would be a made-up answer. An inactive loan, or one the
// quotes show refinancing, is known.
func refinanceUnknown(e *loanEntry) string {
	if e.facts.RefinanceExpected || !e.facts.IsActive {
		return ""
	}
	for _, c := range e.item.Collateral {
		if c.IsPool() {
			return fmt.Sprintf("collateral %d is pool collateral (pool %s), which keeper does not ask quotes for: "+
				"E6 names a collateral by SPL mint only", c.Index, c.AssetIdentifier)
		}
	}
	return ""
}

// unknownFacts returns the facts of mayBeUnknown that keeper does not know
// for e, with why; nil for a nil entry (a position whose loan was not
// observed).
func (e *loanEntry) unknownFacts() map[string]string {
	if e == nil {
		return nil
	}
	return e.unknown
}
