package policies

import (
	"fmt"
	"math"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// secondsPerDay scales per-second interest to a day.
const secondsPerDay = 86_400

// loanEntry is one loan and its facts.
type loanEntry struct {
	item  *market.LoanItem
	mf    market.LoanFacts // from market.ComputeLoanFacts; Ledgers parallel to item.Ledgers
	facts LoanFacts
	err   error // why the facts could not be computed
	// unknown maps facts of mayBeUnknown that keeper does not know for
	// this loan to why (nil when it knows them all).
	unknown map[string]string
}

// deriveLoans computes every loan's facts, sorted by address. Fact slices of
// all loans share two backing arrays, so deriving costs no allocation per
// loan beyond what market.ComputeLoanFacts needs.
func deriveLoans(o *Observation, now time.Time, quotes map[quoteKey]market.Quote) []loanEntry {
	nl, nc := 0, 0
	for i := range o.Loans {
		nl += len(o.Loans[i].Ledgers)
		nc += len(o.Loans[i].Collateral)
	}
	ledgers := make([]LedgerFacts, nl)
	colls := make([]CollateralFacts, nc)
	price := principalPrice(o.Tokens)
	out := make([]loanEntry, len(o.Loans))
	order := sortedBy(len(o.Loans), func(i int) string { return o.Loans[i].Loan.Address })
	for k, i := range order {
		item := &o.Loans[i]
		e := &out[k]
		e.item = item
		l, c := len(item.Ledgers), len(item.Collateral)
		e.facts.Ledgers, ledgers = ledgers[:l:l], ledgers[l:]
		e.facts.Collateral, colls = colls[:c:c], colls[c:]
		deriveLoan(e, now, price, quotes)
	}
	return out
}

// deriveLoan fills e's facts from e.item.
func deriveLoan(e *loanEntry, now time.Time, price market.PrincipalPriceFunc, quotes map[quoteKey]market.Quote) {
	it := e.item
	f := &e.facts
	f.Address, f.Borrower = it.Loan.Address, it.Loan.Borrower
	f.PrincipalUSD, f.InterestAccruedUSD, f.PnlUSD = it.PrincipalUsd, it.InterestAccruedUsd, it.PnlUsd
	for i, c := range it.Collateral {
		f.Collateral[i] = CollateralFacts{Index: c.Index, Mint: c.AssetMint, Identifier: c.AssetIdentifier,
			IsCLMM: c.IsPool(), Amount: c.Amount.Uint64(), USD: collateralUSD(it, c.AssetIdentifier)}
	}
	mf, err := market.ComputeLoanFacts(*it, now, price)
	if err != nil {
		e.err = err
		f.IsActive = !it.Loan.Closed
		return
	}
	e.mf = mf
	f.Health, f.LTV, f.LiquidationLTV = mf.Health, mf.CurrentLTV, mf.LiquidationLTV
	f.DebtUSD, f.CollateralUSD, f.IsActive = mf.DebtUSD, mf.CollateralUSD, mf.Active
	f.SecondsToEnd = max(0, int64(mf.TimeToEnd/time.Second))
	interestPerDay := 0.0
	for i := range it.Ledgers {
		l, lf := &it.Ledgers[i], &mf.Ledgers[i]
		f.Ledgers[i] = LedgerFacts{
			Index: l.LedgerIndex, PrincipalMint: l.PrincipalMint, PrincipalDue: l.PrincipalDue.Uint64(),
			PrincipalRepaid: l.PrincipalRepaid.Uint64(), InterestOutstanding: l.InterestOutstanding.Uint64(),
			Debt: ceilUnits(lf.Debt), DebtUSD: lf.DebtUSD, CapacityUSD: lf.CapacityUSD, Health: lf.Health,
			EndTime: int64(l.EndTime), SecondsToEnd: max(0, int64(lf.TimeToEnd/time.Second)),
			APY: l.Apy.Fraction(), IsActive: lf.Outstanding > 0,
		}
		if lf.Debt > 0 {
			interestPerDay += l.InterestPerSecond.Float64() * secondsPerDay * lf.DebtUSD / lf.Debt
		}
	}
	// Spec rule 3: borrower daily net carry = daily collateral yield − daily
	// interest; collateralYieldPct is read as an annual percentage.
	f.DailyCarryUSD = mf.CollateralUSD*it.CollateralYieldPct/100/365 - interestPerDay
	f.RefinanceExpected = refinanceExpected(e, quotes)
	if why := refinanceUnknown(e); why != "" {
		e.unknown = map[string]string{factRefinanceExpected: why}
	}
}

// collateralUSD returns the USD value of a collateral identifier from the
// loan's collateralBreakdown (a lone collateral without one: collateralUsd).
func collateralUSD(it *market.LoanItem, id string) float64 {
	usd, found := 0.0, false
	for _, b := range it.CollateralBreakdown {
		if b.AssetIdentifier == id {
			usd, found = usd+b.Usd, true
		}
	}
	if !found && len(it.Collateral) == 1 {
		return it.CollateralUsd
	}
	return usd
}

// refinanceExpected reports whether every active ledger has an observed
// quote for its principal mint and term against one of the loan's
// collaterals that offers at least the ledger's debt at an LTV at least the
// loan's current LTV. Without quotes it is false.
func refinanceExpected(e *loanEntry, quotes map[quoteKey]market.Quote) bool {
	if len(quotes) == 0 || !e.facts.IsActive {
		return false
	}
	for i := range e.item.Ledgers {
		l, lf := &e.item.Ledgers[i], &e.facts.Ledgers[i]
		if !lf.IsActive {
			continue
		}
		if !ledgerRefinanceable(e, l, lf.Debt, quotes) {
			return false
		}
	}
	return true
}

func ledgerRefinanceable(e *loanEntry, l *market.Ledger, debt uint64, quotes map[quoteKey]market.Quote) bool {
	term := market.StrategyDuration{DurationType: l.DurationType, Duration: l.Duration}
	for _, c := range e.item.Collateral {
		q, ok := quotes[quoteKey{l.PrincipalMint, term, c.AssetIdentifier}]
		if ok && q.Amount.Uint64() >= debt && q.Ltv.Fraction() >= e.facts.LTV {
			return true
		}
	}
	return false
}

// ceilUnits rounds a non-negative amount of smallest units up to a whole
// unit, treating values within 1e-9 (relative) of an integer as that
// integer so float noise never adds a unit. It saturates at MaxUint64.
func ceilUnits(x float64) uint64 {
	if !(x > 0) {
		return 0
	}
	if x >= math.MaxUint64 {
		return math.MaxUint64
	}
	r := math.Round(x)
	if math.Abs(x-r) <= 1e-9*max(1, x) {
		return uint64(r)
	}
	return uint64(math.Ceil(x))
}

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
