package policies

import (
	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// checkLimits validates limits: a positive per-run cap, a cooldown that is
// not negative, and daily caps keyed by mint addresses with positive values.
func (b *builder) checkLimits(p *Policy) {
	l := &p.Limits
	if l.MaxActionsPerRun < 1 {
		b.fail([]any{"limits", "max_actions_per_run"}, "limits.max_actions_per_run must be at least 1, got %d (use enabled: false to stop a policy)", l.MaxActionsPerRun)
	}
	if l.Cooldown < 0 {
		b.fail([]any{"limits", "cooldown"}, "limits.cooldown must not be negative, got %s", l.Cooldown)
	}
	caps := strictyaml.Find(b.node, "limits", "daily_caps")
	if !b.has("limits", "daily_caps") || caps.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(caps.Content); i += 2 {
		k, v := caps.Content[i], caps.Content[i+1]
		if !looksLikeAddress(k.Value) {
			b.r.at(k, b.name, "limits.daily_caps: %q is not a base58 mint address", k.Value)
		}
		if l.DailyCaps[k.Value].isZero() {
			b.r.at(v, b.name, "limits.daily_caps.%s must be positive (leave the mint out for no cap)", k.Value)
		}
	}
}
