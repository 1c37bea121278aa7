package market

import (
	"bytes"
	"fmt"

	json "github.com/go-json-experiment/json/v1"
)

// UnmarshalJSON decodes the loans-info response of any known generation: an object with items, an
// object with loanInfos, or a bare array of items.
//
// The items are decoded through wire types whose ledgers take the legacy lastInterestUpdateTime
// member as a plain field, so no ledger goes through a custom decoder: encoding/json validates and
// re-scans the bytes of every value it hands to one, which cost a fifth of a page's decoding.
func (p *LoansPage) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if isNull(b) {
		return errNullAnswer
	}
	if len(b) > 0 && b[0] == '[' {
		var items StrictList[loanItemWire]
		if err := json.Unmarshal(b, &items); err != nil {
			return fmt.Errorf("loans info array: %w", err)
		}
		*p = LoansPage{Items: loanItems(items)}
		return nil
	}
	type plain LoansPage
	var w struct {
		plain
		Items     []loanItemWire `json:"items"`
		LoanInfos []loanItemWire `json:"loanInfos"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("loans info: %w", err)
	}
	*p = LoansPage(w.plain)
	if p.Items = loanItems(w.Items); p.Items == nil {
		p.Items = loanItems(w.LoanInfos)
	}
	return nil
}

// loanItemWire is a LoanItem as decoded from the wire, its ledgers in their wire form.
type loanItemWire struct {
	LoanItem
	Ledgers []ledgerWire `json:"ledgers"`
}

// ledgerWire is a Ledger with the member's legacy name beside the current one.
type ledgerWire struct {
	plainLedger
	Legacy *UnixTime `json:"lastInterestUpdateTime"`
}

// plainLedger is Ledger without its decoder.
type plainLedger Ledger

// ledger returns the Ledger, the current name winning over the legacy one.
func (w *ledgerWire) ledger() Ledger {
	if w.Legacy != nil && w.LastInterestUpdatedTime == 0 {
		w.LastInterestUpdatedTime = *w.Legacy
	}
	return Ledger(w.plainLedger)
}

// loanItems converts wire items; nil stays nil (an absent or null listing).
func loanItems(ws []loanItemWire) []LoanItem {
	if ws == nil {
		return nil
	}
	out := make([]LoanItem, len(ws))
	for i := range ws {
		out[i] = ws[i].LoanItem
		if ws[i].Ledgers != nil {
			out[i].Ledgers = make([]Ledger, len(ws[i].Ledgers))
			for j := range ws[i].Ledgers {
				out[i].Ledgers[j] = ws[i].Ledgers[j].ledger()
			}
		}
	}
	return out
}

// decodeAnswer decodes a whole loans-info body: UnmarshalJSON validates what it decodes.
func (p *LoansPage) decodeAnswer(data []byte) error { return p.UnmarshalJSON(data) }

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
	var w ledgerWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	*l = w.ledger()
	return nil
}
