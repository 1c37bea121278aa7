package policies

import (
	"fmt"
	"math"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// RebalanceParams are the params of a rebalance policy (dex-a positions).
type RebalanceParams struct {
	// WidthTicks is the new range's width in ticks; or give WidthPct.
	WidthTicks int64 `yaml:"width_ticks"`
	// WidthPct is the new range's width in percent of the current price.
	WidthPct float64 `yaml:"width_pct"`
	// Trigger says when to move the range (default out_of_range).
	Trigger RebalanceTrigger `yaml:"trigger"`
	// SlippageBps is the slippage tolerance of the transfer (default 50).
	SlippageBps int `yaml:"slippage_bps"`
}

// Kind returns KindRebalance.
func (*RebalanceParams) Kind() Kind { return KindRebalance }

// RebalanceTrigger is `out_of_range` or `{edge_pct: N}`: act when the
// current tick has left the range, or when it is within N % of the range
// width from an edge (out of range included).
type RebalanceTrigger struct {
	// EdgePct is N of edge_pct; 0 means out_of_range.
	EdgePct float64
	node    *yaml.Node
}

// UnmarshalYAML keeps the node; RebalanceParams checks it with positions.
func (t *RebalanceTrigger) UnmarshalYAML(n *yaml.Node) error {
	t.node = n
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "edge_pct" {
		if v := n.Content[1]; v.Tag == "!!int" || v.Tag == "!!float" {
			_ = v.Decode(&t.EdgePct) // a bad value is reported by check, with its position
		}
	}
	return nil
}

// String returns "out_of_range" or "edge_pct N".
func (t RebalanceTrigger) String() string {
	if t.EdgePct > 0 {
		return fmt.Sprintf("edge_pct %g", t.EdgePct)
	}
	return "out_of_range"
}

func (r *RebalanceParams) check(b *builder, _ *Policy) {
	hasTicks, hasPct := b.has("params", "width_ticks"), b.has("params", "width_pct")
	switch {
	case hasTicks == hasPct:
		b.fail([]any{"params"}, "params: set exactly one of width_ticks and width_pct")
	case hasTicks && r.WidthTicks <= 0:
		b.fail([]any{"params", "width_ticks"}, "params.width_ticks must be positive, got %d", r.WidthTicks)
	case hasPct && !(r.WidthPct > 0 && r.WidthPct < 200):
		b.fail([]any{"params", "width_pct"}, "params.width_pct must lie strictly between 0 and 200, got %g", r.WidthPct)
	}
	if !b.has("params", "slippage_bps") {
		r.SlippageBps = 50
	} else if r.SlippageBps < 1 || r.SlippageBps > 5000 {
		b.fail([]any{"params", "slippage_bps"}, "params.slippage_bps must lie in 1..5000, got %d", r.SlippageBps)
	}
	r.Trigger.check(b)
}

// check validates the trigger node: the scalar out_of_range or a mapping
// holding only edge_pct, a number in (0, 50].
func (t *RebalanceTrigger) check(b *builder) {
	n := t.node
	switch {
	case n == nil:
	case n.Kind == yaml.ScalarNode && n.Value == "out_of_range":
	case n.Kind == yaml.MappingNode:
		t.checkEdge(b, n)
	default:
		b.r.at(n, b.name, "params.trigger must be out_of_range or {edge_pct: N}")
	}
}

func (t *RebalanceTrigger) checkEdge(b *builder, n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value != "edge_pct" || i > 0 {
			b.r.at(k, b.name, "params.trigger: unknown field %s (only edge_pct)", strictyaml.NameExcerpt(k.Value))
			return
		}
	}
	v := strictyaml.Find(n, "edge_pct")
	if v == n || (v.Tag != "!!int" && v.Tag != "!!float") {
		b.r.at(v, b.name, "params.trigger.edge_pct must be a number")
		return
	}
	if !(t.EdgePct > 0 && t.EdgePct <= 50) || math.IsNaN(t.EdgePct) {
		b.r.at(v, b.name, "params.trigger.edge_pct must lie in (0, 50], got %g", t.EdgePct)
	}
}
