package market

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// UnmarshalJSON decodes the loans-info response of any known generation: an object with items, an
// object with loanInfos, or a bare array of items.
func (p *LoansPage) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if isNull(b) {
		return errNullAnswer
	}
	if len(b) > 0 && b[0] == '[' {
		var items strictList[LoanItem]
		if err := json.Unmarshal(b, &items); err != nil {
			return fmt.Errorf("loans info array: %w", err)
		}
		*p = LoansPage{Items: items}
		return nil
	}
	type plain LoansPage
	var w struct {
		plain
		LoanInfos []LoanItem `json:"loanInfos"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("loans info: %w", err)
	}
	if w.Items == nil {
		w.Items = w.LoanInfos
	}
	*p = LoansPage(w.plain)
	return nil
}

// checkAnswer requires the list of loans (possibly empty) and a loan address on every item: a null
// item or one without its loan is not a loan keeper can decide on.
func (p *LoansPage) checkAnswer() error {
	if err := requireMember("items", p.Items != nil); err != nil {
		return err
	}
	return requireEach("items", p.Items, "loan.address", func(it *LoanItem) string { return it.Loan.Address })
}

// UnmarshalJSON decodes a ledger record, accepting the older name lastInterestUpdateTime when
// lastInterestUpdatedTime is absent.
func (l *Ledger) UnmarshalJSON(b []byte) error {
	type plain Ledger
	var w struct {
		plain
		Legacy *UnixTime `json:"lastInterestUpdateTime"`
	}
	w.plain = plain(*l)
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if w.Legacy != nil && w.LastInterestUpdatedTime == 0 {
		w.LastInterestUpdatedTime = *w.Legacy
	}
	*l = Ledger(w.plain)
	return nil
}
