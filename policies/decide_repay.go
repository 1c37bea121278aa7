package policies

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// repayInputs are what a repay decision used, hashed into the action ID.
type repayInputs struct {
	Ledger       int     `json:"ledger"`
	Mode         string  `json:"mode"` // "health" or "end"
	Health       float64 `json:"health"`
	Target       float64 `json:"target"`
	Debt         float64 `json:"debt"`
	DebtUSD      float64 `json:"debtUsd"`
	CapacityUSD  float64 `json:"capacityUsd"`
	Amount       uint64  `json:"amount"`
	RepayAll     bool    `json:"repayAll"`
	WriteVersion int64   `json:"writeVersion"`
	LastTxn      string  `json:"lastTxn"`
}

// decide is repay on one active loan: act when the weakest selected
// ledger's health is below trigger_health (and `when` holds), or when a
// ledger ends within repay_all_within and no refinance is expected.
func (rp *RepayParams) decide(e *evaluator, le *loanEntry, env *loanEnv) {
	addr := le.facts.Address
	weak, ending := repayLedgers(le, rp)
	if weak < 0 {
		return
	}
	health := le.mf.Ledgers[weak].Health
	triggered := rp.TriggerHealth == nil || health < *rp.TriggerHealth
	if !(triggered || ending >= 0) || !e.when(addr, env) || !e.gate.ready(addr) {
		return
	}
	if ending >= 0 {
		rp.repayAll(e, le, ending)
		return
	}
	rp.toTarget(e, le, weak)
}

// repayLedgers returns, among the active ledgers params.ledgers selects,
// the one with the lowest health (ties: lowest index), and the one ending
// first when it ends within repay_all_within and no refinance is expected
// (-1 for none). Indexes are into the loan's ledger list.
func repayLedgers(le *loanEntry, rp *RepayParams) (weak, ending int) {
	weak, ending = -1, -1
	var soonest time.Duration
	for i := range le.item.Ledgers {
		l, lf := &le.item.Ledgers[i], &le.mf.Ledgers[i]
		if lf.Outstanding == 0 || (len(rp.Ledgers) > 0 && !containsInt(rp.Ledgers, l.LedgerIndex)) {
			continue
		}
		if weak < 0 || lf.Health < le.mf.Ledgers[weak].Health {
			weak = i
		}
		if ending < 0 || lf.TimeToEnd < soonest {
			ending, soonest = i, lf.TimeToEnd
		}
	}
	if ending >= 0 && (rp.RepayAllWithin <= 0 || soonest >= rp.RepayAllWithin || le.facts.RefinanceExpected) {
		ending = -1
	}
	return weak, ending
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// toTarget repays ledger li back to the target health:
// debt' = (1 − target)·capacity, repay USD = debtUsd − debt', converted to
// principal units at the ledger's own price debtUsd/debt, rounded up, then
// clamped to [min_amount, max_amount], to the debt repayable now
// (outstanding principal + interest outstanding) and to the daily cap.
func (rp *RepayParams) toTarget(e *evaluator, le *loanEntry, li int) {
	addr, l, lf := le.facts.Address, &le.item.Ledgers[li], &le.mf.Ledgers[li]
	minAmount, maxAmount, ok := rp.bounds(e, addr, l.PrincipalMint)
	if !ok {
		return
	}
	target, err := targetHealth(rp, &le.mf)
	if err != nil {
		e.res.skip(addr, SkipError, err.Error())
		return
	}
	if lf.Health >= target {
		e.res.skip(addr, SkipNoop, fmt.Sprintf("ledger %d health %s is already at or above the target %s", l.LedgerIndex, formatRatio(lf.Health), formatRatio(target)))
		return
	}
	need := ceilUnits(lf.Debt * (lf.DebtUSD - (1-target)*lf.CapacityUSD) / lf.DebtUSD * rp.saleFactor(e.obs, le, li, target))
	amount, notes := need, []string(nil)
	if amount < minAmount {
		amount, notes = minAmount, append(notes, "raised to min_amount")
	}
	if amount > maxAmount {
		amount, notes = maxAmount, append(notes, "capped at max_amount")
	}
	if now := l.OutstandingPrincipal().Uint64() + l.InterestOutstanding.Uint64(); amount > now {
		amount, notes = now, append(notes, "capped at the debt outstanding now")
	}
	amount, notes, ok = e.gate.capDaily(addr, l.PrincipalMint, amount, minAmount, notes)
	if !ok {
		return
	}
	after := 1 - (lf.DebtUSD-float64(amount)*lf.DebtUSD/lf.Debt)/lf.CapacityUSD
	reason := fmt.Sprintf("%s: repay %s on ledger %d to reach %s", rp.why(lf.Health), FormatAmount(amount, l.PrincipalMint, e.obs.Tokens), l.LedgerIndex, formatRatio(target))
	if len(notes) > 0 {
		reason = fmt.Sprintf("%s: repay %s on ledger %d, reaching %s of target %s (%s)", rp.why(lf.Health), FormatAmount(amount, l.PrincipalMint, e.obs.Tokens), l.LedgerIndex, formatRatio(after), formatRatio(target), strings.Join(notes, ", "))
	}
	rp.planRepay(e, le, li, amount, false, reason, repayInputs{Mode: "health", Target: target})
}

// why says what triggered a health repayment.
func (rp *RepayParams) why(health float64) string {
	if rp.TriggerHealth != nil {
		return fmt.Sprintf("health %s < %s", formatRatio(health), formatRatio(*rp.TriggerHealth))
	}
	return fmt.Sprintf("when holds at health %s", formatRatio(health))
}

// targetHealth returns target_health, or the health matching target_ltv
// at the loan's liquidation LTV: 1 − target_ltv / liquidation_ltv.
func targetHealth(rp *RepayParams, mf *market.LoanFacts) (float64, error) {
	if rp.TargetHealth != nil {
		return *rp.TargetHealth, nil
	}
	if !(mf.LiquidationLTV > *rp.TargetLTV) {
		return 0, fmt.Errorf("target_ltv %s is not below the loan's liquidation LTV %s", formatRatio(*rp.TargetLTV), formatRatio(mf.LiquidationLTV))
	}
	return 1 - *rp.TargetLTV/mf.LiquidationLTV, nil
}

// repayAll repays ledger li in full: its debt including the interest to
// the end of term, when max_amount and the daily cap allow; otherwise as
// much as they allow, as a partial repayment.
func (rp *RepayParams) repayAll(e *evaluator, le *loanEntry, li int) {
	addr, l, lf := le.facts.Address, &le.item.Ledgers[li], &le.mf.Ledgers[li]
	why := fmt.Sprintf("ledger %d ends in %s (repay_all_within %s) and no refinance is expected", l.LedgerIndex, max(0, lf.TimeToEnd).Round(time.Second), rp.RepayAllWithin)
	full := ceilUnits(lf.Debt)
	minAmount, maxAmount, ok := rp.bounds(e, addr, l.PrincipalMint)
	if !ok {
		return
	}
	left, capped := e.gate.remaining(l.PrincipalMint)
	if full <= maxAmount && (!capped || full <= left) {
		rp.planRepay(e, le, li, full, true, fmt.Sprintf("%s: repay all of ledger %d (at most %s)", why, l.LedgerIndex, FormatAmount(full, l.PrincipalMint, e.obs.Tokens)), repayInputs{Mode: "end"})
		return
	}
	amount := min(maxAmount, l.OutstandingPrincipal().Uint64()+l.InterestOutstanding.Uint64())
	amount, notes, ok := e.gate.capDaily(addr, l.PrincipalMint, amount, minAmount, []string{"the full debt exceeds max_amount"})
	if !ok {
		return
	}
	rp.planRepay(e, le, li, amount, false, fmt.Sprintf("%s: repay %s on ledger %d (%s)", why, FormatAmount(amount, l.PrincipalMint, e.obs.Tokens), l.LedgerIndex, strings.Join(notes, ", ")), repayInputs{Mode: "end"})
}

// planRepay plans the E2 repay request for ledger li: from the wallet, or
// from collateral when params.source says so.
func (rp *RepayParams) planRepay(e *evaluator, le *loanEntry, li int, amount uint64, all bool, reason string, in repayInputs) {
	g := e.gate
	addr, l, lf := le.facts.Address, &le.item.Ledgers[li], &le.mf.Ledgers[li]
	in.Ledger, in.Health, in.Debt, in.DebtUSD, in.CapacityUSD = l.LedgerIndex, lf.Health, lf.Debt, lf.DebtUSD, lf.CapacityUSD
	in.Amount, in.RepayAll, in.WriteVersion, in.LastTxn = amount, all, le.item.Loan.WriteVersion, le.item.Loan.LastInteractedTxn
	if rp.Source.sells() {
		rp.planFromCollateral(e, le, li, amount, reason, in)
		return
	}
	req := &market.BuildLoanRequest{Loan: addr, Steps: []market.Step{{
		Type:   market.StepRepay,
		Params: market.StepParams{Loan: addr, RepayParams: []market.RepayParam{{Amount: market.Amount(amount), LedgerIndex: l.LedgerIndex, RepayAll: all}}},
	}}}
	g.plan(Action{
		Target: addr, Request: Request{BuildLoan: req}, Reason: reason,
		Bounds: Bounds{MaxOutflow: map[string]uint64{l.PrincipalMint: amount}},
	}, in)
}

// bounds resolves min_amount and max_amount in mint, the ledger's
// principal; an amount written in another token (unit), or in one whose
// decimals are unknown (no_data), skips the target rather than spend a
// guess.
func (rp *RepayParams) bounds(e *evaluator, target, mint string) (minAmount, maxAmount uint64, ok bool) {
	minAmount, ok = e.units(target, "params.min_amount", rp.MinAmount, mint)
	if !ok {
		return 0, 0, false
	}
	if maxAmount, ok = e.units(target, "params.max_amount", rp.MaxAmount, mint); !ok {
		return 0, 0, false
	}
	if minAmount > maxAmount {
		e.res.skip(target, SkipError, fmt.Sprintf("params.min_amount (%s) is above max_amount (%s)",
			FormatAmount(minAmount, mint, e.obs.Tokens), FormatAmount(maxAmount, mint, e.obs.Tokens)))
		return 0, 0, false
	}
	return minAmount, maxAmount, true
}

// units resolves the amount at path in mint for target; false, with a skip,
// when it cannot be spent there: another token (unit), or a mint whose
// decimals are unknown (no_data).
func (e *evaluator) units(target, path string, a Amount, mint string) (uint64, bool) {
	v, err := a.Units(mint, e.obs.Tokens)
	if err == nil {
		return v, true
	}
	reason := SkipNoData
	if errors.As(err, new(*OtherTokenError)) {
		reason = SkipUnit
	}
	e.res.skip(target, reason, path+" "+err.Error())
	return 0, false
}
