package policies

import (
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// LedgerHealth returns the health of the ledger of loan whose LedgerIndex
// is ledger, at now, priced from tokens as evaluation prices it: what a
// repay's check after landing compares with the health it decided from.
// An unknown price or a ledger the loan does not hold is an error, never a
// zero health.
func LedgerHealth(loan market.LoanItem, ledger int, now time.Time, tokens map[string]Token) (float64, error) {
	mf, err := market.ComputeLoanFacts(loan, now, principalPrice(tokens))
	if err != nil {
		return 0, err
	}
	for i, l := range loan.Ledgers {
		if l.LedgerIndex == ledger && i < len(mf.Ledgers) {
			return mf.Ledgers[i].Health, nil
		}
	}
	return 0, fmt.Errorf("loan %s holds no ledger %d", loan.Loan.Address, ledger)
}

// RepayTrigger returns a repay policy's trigger_health, if it has one.
func (p *Policy) RepayTrigger() (float64, bool) {
	rp, ok := p.Params.(*RepayParams)
	if !ok || rp.TriggerHealth == nil {
		return 0, false
	}
	return *rp.TriggerHealth, true
}
