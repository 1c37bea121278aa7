package policies

import (
	"slices"
	"time"
)

// maxLedgers is the most ledgers a loan holds.
const maxLedgers = 5

// RepayParams are the params of a repay policy. Amounts are in the ledger's
// principal mint: smallest units, or whole tokens with its symbol.
type RepayParams struct {
	// TriggerHealth acts when loan.health is below it. Required when the
	// policy has no `when`; with a `when`, both must hold.
	TriggerHealth *float64 `yaml:"trigger_health"`
	// TargetHealth is the health the chosen ledger is repaid back to.
	TargetHealth *float64 `yaml:"target_health"`
	// TargetLTV is the alternative to TargetHealth: the LTV (a fraction)
	// the chosen ledger is repaid back to.
	TargetLTV *float64 `yaml:"target_ltv"`
	// MinAmount raises a smaller repayment to this amount.
	MinAmount Amount `yaml:"min_amount"`
	// MaxAmount caps one repayment; required.
	MaxAmount Amount `yaml:"max_amount"`
	// RepayAllWithin repays everything once a ledger ends within this
	// duration and the loan is not expected to refinance (0: never).
	RepayAllWithin time.Duration `yaml:"repay_all_within"`
	// Ledgers restricts which ledger indexes may be repaid; empty means
	// every active ledger. The one with the lowest health is repaid.
	Ledgers []int `yaml:"ledgers"`
}

// Kind returns KindRepay.
func (*RepayParams) Kind() Kind { return KindRepay }

func (r *RepayParams) check(b *builder, p *Policy) {
	b.checkFraction("trigger_health", r.TriggerHealth)
	b.checkFraction("target_health", r.TargetHealth)
	b.checkFraction("target_ltv", r.TargetLTV)
	switch {
	case r.TargetHealth == nil && r.TargetLTV == nil:
		b.fail([]any{"params"}, "params: set one of target_health and target_ltv")
	case r.TargetHealth != nil && r.TargetLTV != nil:
		b.fail([]any{"params", "target_ltv"}, "params: set only one of target_health and target_ltv")
	}
	if r.TriggerHealth == nil && p.When == "" {
		b.fail([]any{"params"}, "params.trigger_health is required when the policy has no when")
	}
	if r.TriggerHealth != nil && r.TargetHealth != nil && *r.TargetHealth <= *r.TriggerHealth {
		b.fail([]any{"params", "target_health"}, "params.target_health (%g) must be above trigger_health (%g)", *r.TargetHealth, *r.TriggerHealth)
	}
	switch {
	case !b.has("params", "max_amount") || r.MaxAmount.isZero():
		b.fail([]any{"params", "max_amount"}, "params.max_amount is required and must be positive: the most one repayment may spend")
	case !r.MinAmount.HasUnit() && !r.MaxAmount.HasUnit() && r.MinAmount.units > r.MaxAmount.units:
		b.fail([]any{"params", "min_amount"}, "params.min_amount (%s) is above max_amount (%s)", r.MinAmount, r.MaxAmount)
	}
	if r.RepayAllWithin < 0 {
		b.fail([]any{"params", "repay_all_within"}, "params.repay_all_within must not be negative, got %s", r.RepayAllWithin)
	}
	for i, l := range r.Ledgers {
		switch {
		case l < 0 || l >= maxLedgers:
			b.fail([]any{"params", "ledgers", i}, "params.ledgers[%d]: ledger index %d is outside 0..%d", i, l, maxLedgers-1)
		case slices.Index(r.Ledgers, l) < i:
			b.fail([]any{"params", "ledgers", i}, "params.ledgers[%d]: ledger %d is listed twice", i, l)
		}
	}
}

// checkFraction reports a set params value outside (0, 1).
func (b *builder) checkFraction(key string, v *float64) {
	if v != nil && !(*v > 0 && *v < 1) { // NaN fails too
		b.fail([]any{"params", key}, "params.%s must lie strictly between 0 and 1, got %g", key, *v)
	}
}
