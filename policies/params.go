package policies

import (
	"math"
	"slices"
	"text/template"
	"time"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// paramsChecker is implemented by every kind's params: check validates the
// decoded values (and compiles their expressions) for policy p.
type paramsChecker interface {
	Params
	check(b *builder, p *Policy)
}

// checkParams checks the decoded params of p's kind; nil when they have
// problems.
func (b *builder) checkParams(p *Policy, params paramsChecker) Params {
	before := len(b.r.errs)
	params.check(b, p)
	if len(b.r.errs) > before {
		return nil
	}
	return params
}

// Severity is how urgent an alert is.
type Severity string

// The severities.
const (
	SeverityInfo     Severity = "info"
	SeverityWarning  Severity = "warning"
	SeverityCritical Severity = "critical"
)

// AlertParams are the params of an alert policy.
type AlertParams struct {
	// Message is a text/template over the target's facts, addressed by
	// their expression names: {{.loan.health}}, {{.position.in_range}}.
	Message string `yaml:"message"`
	// Severity is info, warning (default) or critical.
	Severity Severity `yaml:"severity"`

	tmpl *template.Template
}

// Kind returns KindAlert.
func (*AlertParams) Kind() Kind { return KindAlert }

func (a *AlertParams) check(b *builder, p *Policy) {
	if !slices.Contains([]Severity{SeverityInfo, SeverityWarning, SeverityCritical}, a.Severity) {
		b.fail([]any{"params", "severity"}, "params.severity must be info, warning or critical, got %q", a.Severity)
	}
	if a.Message == "" {
		b.fail([]any{"params", "message"}, "params.message is required")
		return
	}
	if !slices.Contains(targets, p.Select.Target) {
		return // reported by Select.check
	}
	tmpl, e := compileTemplate(a.Message, p.Target())
	if e != nil {
		n := strictyaml.Find(b.node, "params", "message")
		line, col := exprPosition(b.r.src, n, e.line, e.col)
		b.r.atPos(line, col, b.name, "params.message: %s", e.msg)
		return
	}
	a.tmpl = tmpl
}

// ClaimFeesParams are the params of a claim-fees policy (dex-b positions).
// Either threshold reached triggers a claim.
type ClaimFeesParams struct {
	// MinFees0 is the least fees owed in token 0 (smallest units) worth a
	// claim; 0 ignores token 0.
	MinFees0 uint64 `yaml:"min_fees_0"`
	// MinFees1 is the same for token 1.
	MinFees1 uint64 `yaml:"min_fees_1"`
	// MinValueUSD is the least USD value of the fees owed worth a claim;
	// the value must also exceed the most the claim can cost (fee, tip and
	// rent, in SOL at its price). 0 ignores value.
	MinValueUSD float64 `yaml:"min_value_usd"`
}

// Kind returns KindClaimFees.
func (*ClaimFeesParams) Kind() Kind { return KindClaimFees }

func (c *ClaimFeesParams) check(b *builder, _ *Policy) {
	if !(c.MinValueUSD >= 0) || math.IsInf(c.MinValueUSD, 0) {
		b.fail([]any{"params", "min_value_usd"}, "params.min_value_usd must be a USD amount of 0 or more, got %v", c.MinValueUSD)
	}
	if c.MinFees0 == 0 && c.MinFees1 == 0 && !(c.MinValueUSD > 0) {
		b.fail([]any{"params"}, "params: set min_fees_0, min_fees_1 or min_value_usd (any of them) to a positive amount")
	}
}

// ClaimWithdrawalsParams are the params of a claim-withdrawals policy: it
// has none; every fully filled request of the wallet in the selected earn
// vaults is claimed.
type ClaimWithdrawalsParams struct{}

// Kind returns KindClaimWithdrawals.
func (*ClaimWithdrawalsParams) Kind() Kind { return KindClaimWithdrawals }

func (*ClaimWithdrawalsParams) check(*builder, *Policy) {}

// StrategyWithdrawParams are the params of a strategy-withdraw policy.
// Amounts are in the vault's principal mint: smallest units, or whole
// tokens with its symbol.
type StrategyWithdrawParams struct {
	// Buffer is what stays idle in the strategy.
	Buffer Amount `yaml:"buffer"`
	// MinAmount is the least amount worth a withdrawal (default 1 unit).
	MinAmount Amount `yaml:"min_amount"`
}

// Kind returns KindStrategyWithdraw.
func (*StrategyWithdrawParams) Kind() Kind { return KindStrategyWithdraw }

func (s *StrategyWithdrawParams) check(b *builder, _ *Policy) {
	if !b.has("params", "buffer") {
		b.fail([]any{"params"}, "params.buffer is required: the idle amount to keep (0 sweeps everything)")
	}
	if !b.has("params", "min_amount") {
		s.MinAmount = UnitsOf(1)
	} else if s.MinAmount.isZero() {
		b.fail([]any{"params", "min_amount"}, "params.min_amount must be positive")
	}
}

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
	// Source is where the principal comes from: wallet (default), collateral
	// (sold through the DEX aggregator) or auto (the wallet's balance first,
	// collateral for the rest). See decide_repay_collateral.go.
	Source RepaySource `yaml:"source"`
	// MaxSlippage (a fraction) bounds a sale of collateral: at most the
	// oracle value of the repaid debt × (1 + max_slippage) leaves the loan.
	// Required when source is collateral or auto.
	MaxSlippage *float64 `yaml:"max_slippage"`
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
	r.checkSource(b)
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
