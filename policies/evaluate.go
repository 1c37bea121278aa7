package policies

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
)

// Evaluate decides what policy p does now over obs. It is pure: the result
// depends only on its arguments, and it does no I/O. hist is the journal's
// view of p's past actions; state carries p's `for` timers across runs and
// is updated in place (nil: no memory, so a policy with `for` never acts).
//
// Targets are evaluated in target-key order: the kind's built-in trigger
// and `when` decide whether a target is a candidate; `for`, in-flight
// actions, the cooldown, the per-run cap and the daily caps then decide
// whether it gets an action, and every candidate that does not is reported
// in Result.Skipped with why. A snapshot older than p.MaxDataAge yields no
// action at all (fail closed). Evaluate fails only for nil arguments and
// for a policy that did not come from Parse (or LoadFiles).
func Evaluate(p *Policy, obs *Observation, now time.Time, hist History, state *State) (Result, error) {
	return EvaluateScoped(p, obs, now, hist, state, nil)
}

// EvaluateScoped is Evaluate limited to the targets of scope (nil: every
// target). Targets out of scope keep their `for` timers as they were.
func EvaluateScoped(p *Policy, obs *Observation, now time.Time, hist History, state *State, scope *Scope) (Result, error) {
	if p == nil || obs == nil {
		return Result{}, errors.New("policies: evaluate: nil policy or observation")
	}
	if !p.checked {
		return Result{}, fmt.Errorf("policies: evaluate: policy %q was not loaded by Parse", p.Name)
	}
	res := &Result{Policy: p.Name, Kind: p.Kind, Now: now}
	switch {
	case !p.Enabled:
		res.skip("", SkipDisabled, "the policy is not enabled")
		return *res, nil
	case obs.SnapshotTime.IsZero():
		res.skip("", SkipStale, "the snapshot has no time")
		return *res, nil
	case now.Sub(obs.SnapshotTime) > p.MaxDataAge:
		res.skip("", SkipStale, fmt.Sprintf("snapshot is %s old, more than max_data_age %s",
			now.Sub(obs.SnapshotTime).Round(time.Second), p.MaxDataAge))
		return *res, nil
	}
	g := newGate(p, obs.Tokens, now, hist, state, res)
	e := &evaluator{p: p, obs: obs, d: obs.facts(now), nowUnix: now.Unix(), scope: scope, gate: g, res: res}
	e.run()
	if state != nil {
		state.PendingSince = g.pending
	}
	return *res, nil
}

// evaluator holds one evaluation's working state: it selects the targets,
// evaluates the policy's expressions on them and has the kind's params
// decide on each; its gate applies the limits to what they plan.
type evaluator struct {
	p       *Policy
	obs     *Observation
	d       *derived
	nowUnix int64
	scope   *Scope // nil: every target
	vm      vm.VM  // reused across targets
	gate    *gate
	res     *Result
}

// run evaluates every target of the policy's target type.
func (e *evaluator) run() {
	switch e.p.Target() {
	case TargetLoans:
		e.loans()
	case TargetPositions:
		e.positions()
	case TargetWithdrawals:
		e.withdrawals()
	case TargetVaults:
		e.vaults()
	}
}

// when evaluates the policy's `when` on env: true when it holds or is
// absent. A runtime error is recorded as a skip and counts as false.
func (e *evaluator) when(target string, env any) bool {
	if e.p.when == nil {
		return true
	}
	return e.runBool(e.p.when, target, "when", env)
}

// runBool runs a boolean program; an error skips the target.
func (e *evaluator) runBool(prog *vm.Program, target, what string, env any) bool {
	out, err := e.vm.Run(prog, env)
	if err != nil {
		e.res.skip(target, SkipError, what+": "+firstLine(err.Error()))
		return false
	}
	b, _ := out.(bool)
	return b
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
