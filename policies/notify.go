package policies

import (
	"slices"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// checkNotify validates notify and fills the default events.
func (b *builder) checkNotify(p *Policy) {
	n := &p.Notify
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
