package policytest

import (
	"fmt"

	"github.com/keeper-project/keeper/policies"
)

// comparison matches the planned actions and skips of one test against
// what it expects, collecting problems.
type comparison struct {
	got        []policies.Action
	used       []bool
	skips      []policies.Skip
	skipPolicy []string // policy of each skip
	problems   []string
}

// expectation finds the planned action e describes. On failure it reports
// the nearest candidate (same policy and target) field by field, or why
// the target got no action.
func (c *comparison) expectation(e *expectation) {
	best, bestDiff := -1, []string(nil)
	for i := range c.got {
		a := &c.got[i]
		if c.used[i] || a.Policy != e.policy || a.Target != e.target || (e.kind != "" && string(a.Kind) != e.kind) {
			continue
		}
		var diff []string
		if e.request != nil {
			mismatches(e.request, requestJSON(a), "", &diff)
		}
		if m := reasonMismatch(e.reason, a.Reason); m != "" {
			diff = append(diff, m)
		}
		if len(diff) == 0 {
			c.used[i] = true
			return
		}
		if best < 0 || len(diff) < len(bestDiff) {
			best, bestDiff = i, diff
		}
	}
	head := fmt.Sprintf("expected action (line %d): policy %q, target %s", e.line, e.policy, e.target)
	if best >= 0 {
		c.used[best] = true
		c.problems = append(c.problems, head+": differs from the planned one:\n"+indent(bestDiff))
		return
	}
	c.problems = append(c.problems, head+": not planned"+c.whyNot(e.policy, e.target))
}

// whyNot explains, from the skips, why a target got no action.
func (c *comparison) whyNot(policy, target string) string {
	for i, s := range c.skips {
		if c.skipPolicy[i] == policy && (s.Target == target || s.Target == "") {
			return fmt.Sprintf(" (skipped: %s: %s)", s.Reason, s.Detail)
		}
	}
	return " (its condition did not hold)"
}

// unexpected reports every planned action no expectation matched.
func (c *comparison) unexpected() {
	for i := range c.got {
		if c.used[i] {
			continue
		}
		a := &c.got[i]
		lines := []string{fmt.Sprintf("reason: %q", a.Reason)}
		if body := requestJSON(a); body != nil {
			lines = append(lines, "request: "+show(body))
		}
		c.problems = append(c.problems, "unexpected action: "+describe(a)+":\n"+indent(lines))
	}
}

// compareSkips matches skipped targets one to one by policy, target and reason.
func (c *comparison) compareSkips(want []skipExpect) {
	used := make([]bool, len(c.skips))
	for _, w := range want {
		found := false
		for i, s := range c.skips {
			if !used[i] && c.skipPolicy[i] == w.policy && s.Target == w.target && string(s.Reason) == w.reason {
				used[i], found = true, true
				break
			}
		}
		if !found {
			c.problems = append(c.problems, fmt.Sprintf("expected skip not found: policy %q, target %s, reason %s", w.policy, w.target, w.reason))
		}
	}
	for i, s := range c.skips {
		if !used[i] {
			c.problems = append(c.problems, fmt.Sprintf("unexpected skip: policy %q, target %s, reason %s: %s", c.skipPolicy[i], s.Target, s.Reason, s.Detail))
		}
	}
}
