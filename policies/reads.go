package policies

import (
	"slices"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/keeper-project/keeper/keeper/market"
)

// Reads says what the runtime must read for one evaluation of a policy.
// Filters the market API has are pushed into the queries; Evaluate applies
// every filter again, so reading more than asked is harmless.
type Reads struct {
	// Loans is the loans-info (E3) query, nil when the policy needs no loans.
	Loans *market.LoansQuery
	// Positions asks for the CLMM collateral positions of the loans read
	// (pool and position accounts from chain).
	Positions bool
	// EarnVaults are the earn vaults whose withdrawal queues to read, for
	// the wallet.
	EarnVaults []string
	// Vaults asks for the lending vault listing (E11), with rewards.
	Vaults bool
	// Quotes asks for the best quotes (E6): for the strategies' collaterals
	// and terms (strategy-update), or the loans' collaterals and ledger terms
	// (refinance_expected).
	Quotes bool
	// PositionValues asks for the USD prices of the positions' pool mints
	// and of SOL (claim-fees by value, position.fees_owed_usd).
	PositionValues bool
	// LoanValues asks for the oracle's USD prices of the loans' principal
	// and token collateral mints (a repay that may sell collateral).
	LoanValues bool
	// Loops asks for the loops (E12) of the vaults' principal mints and
	// their strategies' collaterals, when an expression reads them.
	Loops bool
}

// Reads returns what evaluating p needs, for the signer's wallet.
func (p *Policy) Reads(wallet string) Reads {
	var r Reads
	switch p.Target() {
	case TargetLoans, TargetPositions:
		r.Loans = p.loansQuery(wallet)
		r.Positions = p.Target() == TargetPositions
		cp, byValue := p.Params.(*ClaimFeesParams)
		r.PositionValues = r.Positions && (byValue && cp.MinValueUSD > 0 || p.whenReads[factFeesOwedUSD])
		r.Quotes = uses(p.when, "refinance_expected")
		if rp, ok := p.Params.(*RepayParams); ok && rp.RepayAllWithin > 0 {
			r.Quotes = true
		}
		if rp, ok := p.Params.(*RepayParams); ok && rp.Source.sells() {
			r.LoanValues = true
		}
	case TargetWithdrawals:
		r.EarnVaults = slices.Clone(p.Select.Vaults)
	case TargetVaults:
		r.Vaults = true
		r.Quotes = p.Kind == KindStrategyUpdate || uses(p.when, "quotes")
		r.Loops = p.readsLoops()
	}
	return r
}

// readsLoops reports whether an expression of p reads loops: its when, or
// a strategy-update's originations_enabled or rules' apy.
func (p *Policy) readsLoops() bool {
	progs := []*vm.Program{p.when}
	if sp, ok := p.Params.(*StrategyUpdateParams); ok {
		progs = append(progs, sp.originations)
		for _, r := range sp.Rules {
			progs = append(progs, r.apy)
		}
	}
	for _, prog := range progs {
		for _, name := range loopNames {
			if uses(prog, name) {
				return true
			}
		}
	}
	return false
}

// loansQuery builds the E3 query from Select: loan addresses, borrowers
// (default the wallet) and exclusions. The mint and collateral filters that
// keep loans are applied by Evaluate, not sent: policies that select the
// same borrowers then make the same query, so one walk of the loans (and
// one derivation of their facts) serves all of them in a tick, however
// their mint filters differ. Exclusions are sent, so that the market does
// not page through what the operator excluded; excluded collateral goes in
// both excludeCollateralMints and excludeCollateralIdentifiers, because the
// identifier of pool collateral is the pool id, not a mint (spec, E3).
// Evaluate applies them again.
func (p *Policy) loansQuery(wallet string) *market.LoansQuery {
	s := &p.Select
	q := &market.LoansQuery{
		LoanAddresses:         slices.Clone(s.Loans),
		Borrowers:             slices.Clone(s.Borrowers),
		ExcludePrincipalMints: slices.Clone(s.ExcludePrincipalMints),
	}
	if len(q.Borrowers) == 0 {
		q.Borrowers = []string{wallet}
	}
	if len(s.ExcludeCollateral) > 0 {
		q.ExcludeCollateral(s.ExcludeCollateral...)
	}
	return q
}

// uses reports whether a compiled expression names name, as a variable or
// a field.
func uses(prog *vm.Program, name string) bool {
	if prog == nil {
		return false
	}
	f := &nameFinder{name: name}
	root := prog.Node()
	ast.Walk(&root, f)
	return f.found
}

// nameFinder looks for an identifier or a field name in an expression.
type nameFinder struct {
	name  string
	found bool
}

// Visit notes a matching identifier or member name.
func (f *nameFinder) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.IdentifierNode:
		f.found = f.found || n.Value == f.name
	case *ast.MemberNode:
		if s, ok := n.Property.(*ast.StringNode); ok && s.Value == f.name {
			f.found = true
		}
	}
}
