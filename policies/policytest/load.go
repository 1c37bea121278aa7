package policytest

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/policies"
)

// testCase is one test, ready to run.
type testCase struct {
	name      string
	line, col int
	now       time.Time
	obs       *policies.Observation
	history   map[string]policies.History
	pending   map[string]map[string]time.Time
	expect    []expectation
	skipped   []skipExpect // nil: not checked
	checkSkip bool
	only      []string // the policies to evaluate; nil: all
}

// expectation is one expected action.
type expectation struct {
	policy, target, kind, reason string
	request                      any // decoded JSON; nil: not compared
	line, col                    int
}

// skipExpect is one expected skipped target.
type skipExpect struct{ policy, target, reason string }

// loader builds the tests of one file, collecting positioned problems.
type loader struct {
	file   string
	policy map[string]*policies.Policy
	errs   strictyaml.Errors
}

func (l *loader) fail(n *yaml.Node, test, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if test != "" {
		msg = fmt.Sprintf("test %q: %s", test, msg)
	}
	l.errs = append(l.errs, strictyaml.At(l.file, n, "%s", msg))
}

// parseTime parses an RFC 3339 time at node n (path from the test node).
func (l *loader) parseTime(tn *yaml.Node, test, s string, path ...any) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		l.fail(strictyaml.Find(tn, path...), test, "%q is not an RFC 3339 time such as 2025-06-01T12:00:00Z", s)
	}
	return t
}

// build turns test i (node tn) into a testCase.
func (l *loader) build(tn *yaml.Node, ty *testYAML) *testCase {
	tc := &testCase{name: ty.Name, line: tn.Line, col: tn.Column}
	if ty.Name == "" {
		l.fail(tn, "", "name is required")
	}
	if ty.Now == "" {
		l.fail(tn, ty.Name, "now is required (an RFC 3339 time)")
	} else {
		tc.now = l.parseTime(tn, ty.Name, ty.Now, "now")
	}
	for i, name := range ty.Policies {
		l.checkPolicy(strictyaml.Find(tn, "policies", i), ty.Name, name)
	}
	tc.only = ty.Policies
	tc.obs = l.observations(strictyaml.Find(tn, "observations"), ty.Name, &ty.Observations, tc.now)
	tc.history = l.history(tn, ty)
	tc.pending = l.pending(tn, ty)
	if ty.Expect == nil {
		l.fail(tn, ty.Name, "expect is required (expect: [] for no action)")
	} else {
		for i := range *ty.Expect {
			tc.expect = append(tc.expect, l.expectation(strictyaml.Find(tn, "expect", i), ty.Name, &(*ty.Expect)[i]))
		}
	}
	if ty.Skipped != nil {
		tc.checkSkip = true
		for i, s := range *ty.Skipped {
			l.checkPolicy(strictyaml.Find(tn, "skipped", i, "policy"), ty.Name, s.Policy)
			if !slices.Contains(skipReasons, policies.SkipReason(s.Reason)) {
				l.fail(strictyaml.Find(tn, "skipped", i, "reason"), ty.Name, "unknown skip reason %q", s.Reason)
			}
			tc.skipped = append(tc.skipped, skipExpect{s.Policy, s.Target, s.Reason})
		}
	}
	return tc
}

var skipReasons = []policies.SkipReason{policies.SkipStale, policies.SkipDisabled, policies.SkipFor, policies.SkipInFlight,
	policies.SkipCooldown, policies.SkipRunCap, policies.SkipDailyCap, policies.SkipFeeCap, policies.SkipNoData,
	policies.SkipUnit, policies.SkipError, policies.SkipNoop}

// checkPolicy reports a policy name the policy files do not define.
func (l *loader) checkPolicy(n *yaml.Node, test, name string) {
	if _, ok := l.policy[name]; !ok {
		l.fail(n, test, "no policy %q in the policy files", name)
	}
}

func (l *loader) expectation(n *yaml.Node, test string, e *expectYAML) expectation {
	out := expectation{policy: e.Policy, target: e.Target, kind: e.Kind, reason: e.ReasonContains, line: n.Line, col: n.Column}
	l.checkPolicy(strictyaml.Find(n, "policy"), test, e.Policy)
	if e.Target == "" {
		l.fail(n, test, "expect: target is required")
	}
	if e.Kind != "" && !policies.Kind(e.Kind).Valid() {
		l.fail(strictyaml.Find(n, "kind"), test, "unknown kind %q", e.Kind)
	}
	if e.Request.n != nil {
		data, err := toJSON(e.Request.n)
		if err == nil {
			err = unmarshalNumbers(data, &out.request)
		}
		if err != nil {
			l.fail(e.Request.n, test, "expect.request: %v", err)
		}
	}
	return out
}

func (l *loader) history(tn *yaml.Node, ty *testYAML) map[string]policies.History {
	out := map[string]policies.History{}
	for name, h := range ty.History {
		n := strictyaml.Find(tn, "history", name)
		l.checkPolicy(strictyaml.FindKey(strictyaml.Find(tn, "history"), name), ty.Name, name)
		ph := policies.History{SpentToday: h.SpentToday, FeesToday: h.FeesToday, ActionsThisRun: h.ActionsThisRun,
			Targets: map[string]policies.TargetHistory{}}
		for target, th := range h.Targets {
			var last time.Time
			if th.LastAction != "" {
				last = l.parseTime(n, ty.Name, th.LastAction, "targets", target, "last_action")
			}
			ph.Targets[target] = policies.TargetHistory{LastAction: last, InFlight: th.InFlight}
		}
		out[name] = ph
	}
	return out
}

func (l *loader) pending(tn *yaml.Node, ty *testYAML) map[string]map[string]time.Time {
	out := map[string]map[string]time.Time{}
	for name, targets := range ty.PendingSince {
		l.checkPolicy(strictyaml.FindKey(strictyaml.Find(tn, "pending_since"), name), ty.Name, name)
		out[name] = map[string]time.Time{}
		for target, s := range targets {
			out[name][target] = l.parseTime(tn, ty.Name, s, "pending_since", name, target)
		}
	}
	return out
}

// unmarshalNumbers decodes JSON keeping numbers as json.Number.
func unmarshalNumbers(data []byte, out *any) error {
	dec := json.NewDecoder(bytesReader(data))
	dec.UseNumber()
	return dec.Decode(out)
}

// wire decodes the wire-shape items of list into market values.
func wire[T any](l *loader, list *yaml.Node, test, what string, items []node) []T {
	out := make([]T, 0, len(items))
	for i, it := range items {
		var v T
		if err := decodeWire(it.n, &v); err != nil {
			at := strictyaml.Find(list, i)
			if ke, ok := err.(*keyError); ok {
				at = ke.node
			}
			l.fail(at, test, "observations.%s[%d]: %v", what, i, err)
			continue
		}
		out = append(out, v)
	}
	return out
}
