package policies

import (
	"fmt"
	"time"
)

// Holdings are an Observation's loans, CLMM positions and withdrawal
// requests with the facts policies decide from, for people (`keeper
// wallet`). A loan or position whose facts could not be derived is listed
// in Problems, by address, with why.
type Holdings struct {
	Loans       []LoanFacts       `json:"loans"`
	Positions   []PositionFacts   `json:"positions"`
	Withdrawals []WithdrawalFacts `json:"withdrawals"`
	Problems    map[string]string `json:"problems,omitempty"`
}

// Holdings derives o's facts at now, as Evaluate would.
func (o *Observation) Holdings(now time.Time) Holdings {
	d := o.facts(now)
	h := Holdings{Loans: []LoanFacts{}, Positions: []PositionFacts{}, Withdrawals: []WithdrawalFacts{}}
	problem := func(addr string, err error) {
		if h.Problems == nil {
			h.Problems = map[string]string{}
		}
		h.Problems[addr] = err.Error()
	}
	for _, l := range d.loans {
		if l.err != nil {
			problem(l.item.Loan.Address, l.err)
			continue
		}
		h.Loans = append(h.Loans, l.facts)
	}
	for _, p := range d.positions {
		if p.err != nil {
			problem(p.facts.PositionMint, p.err)
			continue
		}
		h.Positions = append(h.Positions, p.facts)
		for name, why := range p.unknown {
			problem(p.facts.PositionMint+" "+name, fmt.Errorf("unknown: %s", why))
		}
	}
	for _, w := range d.withdrawals {
		h.Withdrawals = append(h.Withdrawals, w.facts)
	}
	return h
}
