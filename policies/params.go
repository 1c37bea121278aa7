package policies

import (
	"math"
	"reflect"
	"slices"
	"text/template"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// paramsChecker is implemented by every kind's params: check validates the
// decoded values (and compiles their expressions) for policy p.
type paramsChecker interface {
	Params
	check(b *builder, p *Policy)
}

// params decodes node strictly into the params of p's kind and checks them.
// It returns nil when they have problems.
func (b *builder) params(p *Policy, node *yaml.Node) Params {
	out := newParams(p.Kind)
	if out == nil {
		return nil
	}
	if node != nil && !b.decodeParams(node, out) {
		return nil
	}
	before := len(b.r.errs)
	out.check(b, p)
	if len(b.r.errs) > before {
		return nil
	}
	return out
}

// newParams returns the zero params of kind k with their defaults.
func newParams(k Kind) paramsChecker {
	switch k {
	case KindRepay:
		return &RepayParams{}
	case KindRebalance:
		return &RebalanceParams{}
	case KindClaimFees:
		return &ClaimFeesParams{}
	case KindClaimWithdrawals:
		return &ClaimWithdrawalsParams{}
	case KindStrategyUpdate:
		return &StrategyUpdateParams{}
	case KindStrategyWithdraw:
		return &StrategyWithdrawParams{}
	case KindAlert:
		return &AlertParams{Severity: SeverityWarning}
	}
	return nil
}

// decodeParams decodes node into out (a pointer to a params struct) under
// the name "params", so messages read params.min_amount.
func (b *builder) decodeParams(node *yaml.Node, out any) bool {
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "params", Line: node.Line, Column: node.Column}
	wrap := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: node.Line, Column: node.Column, Content: []*yaml.Node{key, node}}
	errs := strictyaml.Decode(b.r.file, wrap, paramsWrapper(out), strictyaml.Options{})
	if len(errs) > 0 {
		b.r.strict(errs, b.name)
		return false
	}
	return true
}

// paramsWrapper returns a pointer to a struct whose one field, Params
// (yaml "params"), holds out, so decoding fills out in place and keeps the
// defaults already set in it.
func paramsWrapper(out any) any {
	t := reflect.StructOf([]reflect.StructField{{Name: "Params", Type: reflect.TypeOf(out), Tag: `yaml:"params"`}})
	v := reflect.New(t)
	v.Elem().Field(0).Set(reflect.ValueOf(out))
	return v.Interface()
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
		return // reported by checkSelect
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
