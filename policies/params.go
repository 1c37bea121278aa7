package policies

import (
	"reflect"

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
