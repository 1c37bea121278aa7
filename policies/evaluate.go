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
	e := &evaluator{p: p, obs: obs, now: now, nowUnix: now.Unix(), hist: hist, state: state, scope: scope}
	e.res = Result{Policy: p.Name, Kind: p.Kind, Now: now}
	switch {
	case !p.Enabled:
		e.skip("", SkipDisabled, "the policy is not enabled")
		return e.res, nil
	case obs.SnapshotTime.IsZero():
		e.skip("", SkipStale, "the snapshot has no time")
		return e.res, nil
	case now.Sub(obs.SnapshotTime) > p.MaxDataAge:
		e.skip("", SkipStale, fmt.Sprintf("snapshot is %s old, more than max_data_age %s",
			now.Sub(obs.SnapshotTime).Round(time.Second), p.MaxDataAge))
		return e.res, nil
	}
	e.d = obs.facts(now)
	if p.For > 0 {
		e.pending = map[string]time.Time{}
	}
	e.run()
	if state != nil {
		state.PendingSince = e.pending
	}
	return e.res, nil
}

// evaluator holds one evaluation's working state.
type evaluator struct {
	p       *Policy
	obs     *Observation
	d       *derived
	now     time.Time
	nowUnix int64
	hist    History
	state   *State
	scope   *Scope               // nil: every target
	pending map[string]time.Time // targets whose condition holds, since when
	spent   map[string]uint64    // outflow planned in this evaluation, per mint
	fees    uint64               // fees and tips planned in this evaluation
	vm      vm.VM                // reused across targets
	res     Result
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

// skip records that target gets no action.
func (e *evaluator) skip(target string, why SkipReason, detail string) {
	e.res.Skipped = append(e.res.Skipped, Skip{Target: target, Reason: why, Detail: detail})
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
		e.skip(target, SkipError, what+": "+firstLine(err.Error()))
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
