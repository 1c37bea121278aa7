package policies

import (
	"fmt"
	"maps"
	"slices"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// loan evaluates one loan (repay, alerts on loans), if selected and in scope, with env.
func (e *evaluator) loan(le *loanEntry, env *loanEnv) {
	if !e.selectLoan(le.item) {
		return
	}
	if acc, mints := loanScope(le); !e.unscoped() && !e.inScope(le.item.Loan.Address, acc, mints) {
		return
	}
	if !e.evaluated(le.facts.Address, le.err, unknownFacts{"loan", le.unknown}) {
		return
	}
	env.Loan = &le.facts
	if e.p.Kind == KindAlert {
		e.p.Params.(*AlertParams).decide(e, le.facts.Address, env)
	} else if le.facts.IsActive {
		e.p.Params.(*RepayParams).decide(e, le, env)
	}
}

// selectLoan applies Select's loan filters; borrowers default to the wallet.
func (e *evaluator) selectLoan(it *market.LoanItem) bool {
	s := &e.p.Select
	if !anyIn(s.Loans, it.Loan.Address) {
		return false
	}
	if len(s.Borrowers) > 0 {
		if !anyIn(s.Borrowers, it.Loan.Borrower) {
			return false
		}
	} else if it.Loan.Borrower != e.obs.Wallet || e.obs.Wallet == "" {
		return false
	}
	if len(s.PrincipalMints) > 0 && !hasLedgerMint(it, s.PrincipalMints) {
		return false
	}
	if excluded(it, s) {
		return false
	}
	if len(s.CollateralMints) > 0 || len(s.CollateralIdentifiers) > 0 {
		return hasCollateral(it, s.CollateralMints, s.CollateralIdentifiers)
	}
	return true
}

func hasLedgerMint(it *market.LoanItem, mints []string) bool {
	for _, l := range it.Ledgers {
		if anyIn(mints, l.PrincipalMint) {
			return true
		}
	}
	return false
}

// excluded reports a loan that Select's exclusions drop: a ledger in an
// excluded principal mint, or a collateral entry whose mint or identifier
// is excluded. The market applies them too; applying them here keeps a
// loan the market failed to drop from being acted on.
func excluded(it *market.LoanItem, s *Select) bool {
	if len(s.ExcludePrincipalMints) > 0 && hasLedgerMint(it, s.ExcludePrincipalMints) {
		return true
	}
	for _, c := range it.Collateral {
		if len(s.ExcludeCollateral) > 0 && (slices.Contains(s.ExcludeCollateral, c.AssetMint) || slices.Contains(s.ExcludeCollateral, c.AssetIdentifier)) {
			return true
		}
	}
	return false
}

// hasCollateral reports a collateral entry passing both filters.
func hasCollateral(it *market.LoanItem, mints, ids []string) bool {
	for _, c := range it.Collateral {
		if anyIn(mints, c.AssetMint) && anyIn(ids, c.AssetIdentifier) {
			return true
		}
	}
	return false
}

// position evaluates one CLMM position (rebalance on dex-a, claim-fees on
// dex-b, alerts on both), if selected and in scope, with env.
func (e *evaluator) position(pe *positionEntry, env *positionEnv) {
	if !e.selectPosition(pe) {
		return
	}
	if acc, mints := positionScope(pe); !e.unscoped() && !e.inScope(pe.facts.PositionMint, acc, mints) {
		return
	}
	if !e.evaluated(pe.facts.PositionMint, pe.err, unknownFacts{"position", pe.unknown}, unknownFacts{"loan", pe.loan.unknownFacts()}) {
		return
	}
	env.Position, env.Loan = &pe.facts, &pe.loan.facts
	switch e.p.Kind {
	case KindRebalance:
		e.p.Params.(*RebalanceParams).decide(e, pe, env)
	case KindClaimFees:
		e.p.Params.(*ClaimFeesParams).decide(e, pe, env)
	case KindAlert:
		e.p.Params.(*AlertParams).decide(e, pe.facts.PositionMint, env)
	}
}

// selectPosition applies the dex of the kind, Select.Positions and the
// holding loan's filters. A position whose loan was not observed is
// selected only when listed in Select.Positions (it is then reported).
func (e *evaluator) selectPosition(pe *positionEntry) bool {
	switch {
	case e.p.Kind == KindRebalance && pe.facts.Dex != clmm.DexA,
		e.p.Kind == KindClaimFees && pe.facts.Dex != clmm.DexB,
		!anyIn(e.p.Select.Positions, pe.facts.PositionMint):
		return false
	case pe.loan == nil:
		return len(e.p.Select.Positions) > 0
	}
	return e.selectLoan(pe.loan.item)
}

// withdrawals evaluates the wallet's requests in the selected earn vaults.
func (e *evaluator) withdrawals() {
	env := &withdrawalEnv{Now: e.nowUnix}
	for i := range e.d.withdrawals {
		we := &e.d.withdrawals[i]
		if !anyIn(e.p.Select.Vaults, we.facts.Vault) || we.facts.Wallet != e.obs.Wallet || e.obs.Wallet == "" {
			continue
		}
		if !e.inScope(we.facts.RequestID, one(we.facts.Vault), none) {
			continue
		}
		e.res.Evaluated++
		env.Withdrawal = &we.facts
		if e.p.Kind == KindAlert {
			e.p.Params.(*AlertParams).decide(e, we.facts.RequestID, env)
		} else {
			e.p.Params.(*ClaimWithdrawalsParams).decide(e, we, env)
		}
	}
}

// vaults evaluates the selected vaults: those listed, else (for strategy
// kinds) those whose strategy authority is the wallet, else (for alerts)
// every observed vault.
func (e *evaluator) vaults() {
	for i := range e.d.vaults {
		ve := &e.d.vaults[i]
		switch {
		case len(e.p.Select.Vaults) > 0:
			if !anyIn(e.p.Select.Vaults, ve.facts.Address) {
				continue
			}
		case e.p.Kind != KindAlert:
			if e.obs.Wallet == "" || ve.strategy.Authority != e.p.Authority.Address(e.obs.Wallet) {
				continue
			}
		}
		if !e.inScope(ve.facts.Address, one(ve.facts.Address), one(ve.facts.PrincipalMint)) {
			continue
		}
		if !e.evaluated(ve.facts.Address, nil, unknownFacts{"vault", ve.unknown}) {
			continue
		}
		facts := ve.facts
		env := &vaultEnv{Vault: &facts, Strategy: &ve.strategy, Quotes: ve.quotes, Loops: ve.loops, Now: e.nowUnix}
		switch e.p.Kind {
		case KindStrategyUpdate:
			e.p.Params.(*StrategyUpdateParams).decide(e, ve, env)
		case KindStrategyWithdraw:
			e.p.Params.(*StrategyWithdrawParams).decide(e, env)
		case KindAlert:
			e.p.Params.(*AlertParams).decide(e, ve.facts.Address, env)
		}
	}
}

// The facts a missing price (or, for refinance_expected, a quote keeper
// does not ask for; for max_allocation_pct, a value the market sent that is
// not a percentage) can leave unknown, by expression name.
const (
	factRewardsAPY        = "rewards_apy"
	factTotalAPY          = "total_apy"
	factFeesOwedUSD       = "fees_owed_usd"
	factRefinanceExpected = "refinance_expected"
	factMaxAllocationPct  = "max_allocation_pct"
)

// mayBeUnknown lists them.
var mayBeUnknown = []string{factRewardsAPY, factTotalAPY, factFeesOwedUSD, factRefinanceExpected, factMaxAllocationPct}

// evaluated counts the target key as evaluated and reports whether it can
// be decided on: false, with a no_data skip saying why, when its facts
// could not be derived (err) or the policy's `when` reads one of them that
// is unknown.
func (e *evaluator) evaluated(key string, err error, unknown ...unknownFacts) bool {
	e.res.Evaluated++
	if err != nil {
		e.res.skip(key, SkipNoData, err.Error())
		return false
	}
	for _, u := range unknown {
		if why, ok := u.readBy(e.p); ok {
			e.res.skip(key, SkipNoData, why)
			return false
		}
	}
	return true
}

// unknownFacts are the facts of a target (loan, position, vault) keeper
// does not know, by expression name, with why.
type unknownFacts struct {
	target string
	facts  map[string]string
}

// readBy reports the first unknown fact that p's `when` reads, and why it
// is unknown: an expression over a fact keeper does not know is not
// evaluated, so it cannot fire on a zero that stands for "unknown".
func (u unknownFacts) readBy(p *Policy) (string, bool) {
	if len(u.facts) == 0 || len(p.whenReads) == 0 {
		return "", false
	}
	for _, name := range slices.Sorted(maps.Keys(u.facts)) {
		if p.whenReads[name] {
			return fmt.Sprintf("%s.%s is unknown: %s", u.target, name, u.facts[name]), true
		}
	}
	return "", false
}
