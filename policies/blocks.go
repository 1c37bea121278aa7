package policies

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// check validates limits: a positive per-run cap, a cooldown that is not
// negative, and daily caps keyed by mint addresses with positive values.
func (l *Limits) check(b *builder) {
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
		if !isAddress(k.Value) {
			b.r.at(k, b.name, "limits.daily_caps: %s is not a base58 mint address%s", strictyaml.NameExcerpt(k.Value), notAddress(k.Value))
		}
		if l.DailyCaps[k.Value].isZero() {
			b.r.at(v, b.name, "limits.daily_caps.%s must be positive (leave the mint out for no cap)", strictyaml.PathSegment(k.Value))
		}
	}
}

// check validates submit and fills its defaults for a policy of kind k:
// the mode (bundle for claim-withdrawals, rpc otherwise) and the rent
// allowance.
func (s *Submit) check(b *builder, k Kind) {
	switch s.Mode {
	case "":
		s.Mode = ModeAuto
		if k == KindClaimWithdrawals {
			s.Mode = ModeBundle
		}
	case ModeAuto, ModeRPC, ModeBundle:
	default:
		b.fail([]any{"submit", "mode"}, "submit.mode must be auto, rpc or bundle, got %q", s.Mode)
	}
	for _, pc := range []struct {
		key string
		v   int
	}{{"priority_percentile", s.PriorityPercentile}, {"tip_percentile", s.TipPercentile}} {
		if pc.v < 0 || pc.v > 100 {
			b.fail([]any{"submit", pc.key}, "submit.%s must be a percentile from 1 to 100, got %d", pc.key, pc.v)
		}
	}
	if k == KindClaimWithdrawals && s.Mode != ModeBundle {
		b.fail([]any{"submit", "mode"}, "submit.mode must be bundle for claim-withdrawals: the claim transactions land in order as one bundle")
	}
	if s.TipLamports > 0 && s.Mode != ModeBundle && s.Mode != ModeAuto {
		b.fail([]any{"submit", "tip_lamports"}, "submit.tip_lamports applies to modes bundle and auto only")
	}
	if s.MaxFeeLamports == 0 {
		b.fail([]any{"submit", "max_fee_lamports"}, "submit.max_fee_lamports must be positive")
	}
	if !b.has("submit", "max_rent_lamports") {
		s.MaxRentLamports = defaultRent(k)
	}
	if k == KindAlert && b.has("submit") {
		b.fail([]any{"submit"}, "submit does not apply to alerts: they build no transaction")
	}
}

// check validates notify and fills the default events of p's kind; it
// records where p names each notifier.
func (n *Notify) check(b *builder, p *Policy) {
	to := strictyaml.Find(b.node, "notify", "to")
	seen := map[string]bool{}
	for i, name := range n.To {
		at := strictyaml.Find(to, i)
		p.notifyPos = append(p.notifyPos, position{at.Line, at.Column})
		switch {
		case name == "":
			b.r.at(at, b.name, "notify.to[%d]: a notifier name must not be empty", i)
		case seen[name]:
			b.r.at(at, b.name, "notify.to[%d]: notifier %q is listed twice", i, name)
		}
		seen[name] = true
	}
	if !b.has("notify", "on") {
		n.On = []Event{EventFailed, EventRefused}
		if p.Kind == KindAlert {
			n.On = []Event{EventAlert}
		}
	}
	for i, e := range n.On {
		switch {
		case !slices.Contains(events, e):
			b.fail([]any{"notify", "on", i}, "notify.on[%d] must be one of landed, failed, refused, alert, got %q", i, e)
		case (e == EventAlert) != (p.Kind == KindAlert):
			b.fail([]any{"notify", "on", i}, "notify.on[%d]: %q does not apply to a %s policy", i, e, p.Kind)
		}
	}
}

// CheckNotifiers reports, positioned, every notifier a policy names that is
// not among known (the config's notifier names).
func CheckNotifiers(ps []*Policy, known []string) error {
	var errs Errors
	for _, p := range ps {
		for i, name := range p.Notify.To {
			if slices.Contains(known, name) {
				continue
			}
			e := &Error{File: p.File, Line: p.Line, Column: p.Column, Policy: p.Name}
			if i < len(p.notifyPos) {
				e.Line, e.Column = p.notifyPos[i].line, p.notifyPos[i].col
			}
			e.Msg = "notify.to: unknown notifier " + quote(name) + " (not in the config's notifiers)"
			errs = append(errs, e)
		}
	}
	return errs.err()
}
