package policies

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/keeper-project/keeper/keeper/market"
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
	e.clearGone()
	res.Evaluated += obs.Dropped
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
		env := &loanEnv{Now: e.nowUnix}
		for i := range e.d.loans {
			e.loan(&e.d.loans[i], env)
		}
	case TargetPositions:
		env := &positionEnv{Now: e.nowUnix}
		for i := range e.d.positions {
			e.position(&e.d.positions[i], env)
		}
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

// Sieve evaluates a policy over loans that arrive page by page, and keeps
// of them only what the evaluation could act on or report: the loans (and,
// for position policies, the CLMM positions) whose condition holds, whose
// data is unusable, whose `for` timer must be carried over, or whose open
// alert incident the evaluation finds cleared (State.Open). Every other
// target is counted and dropped with its page. Evaluating the Observation
// the sieve returns then decides exactly what evaluating every page at once
// would: a dropped target reached none of the limits (`for`, in flight,
// cooldown, caps), so it changes nothing for the targets after it.
//
// Memory is bounded by a page and the kept targets, whatever the number of
// loans. Only policies whose targets are loans or positions read loans
// (Reads.Loans), so only they are sieved.
type Sieve struct {
	p     *Policy
	now   time.Time
	base  time.Time // the base's snapshot time
	state *State    // read only: out-of-scope targets with a `for` timer are kept
	scope *Scope

	out    *Observation
	quotes map[quoteKey]QuoteObservation
	kept   map[string]bool // addresses of the loans kept
}

// NewSieve returns a sieve of p's targets at now, with p's `for` state
// (read, never written) and the run's scope (nil: every target). base
// gives what every page shares: the wallet, the snapshot time, the tokens
// and what else was read besides the loans; its Loans, Positions and
// Quotes are replaced by what the sieve keeps.
func NewSieve(p *Policy, base *Observation, now time.Time, state *State, scope *Scope) *Sieve {
	out := &Observation{Wallet: base.Wallet, SnapshotTime: base.SnapshotTime, Withdrawals: base.Withdrawals,
		EarnPositions: base.EarnPositions, Vaults: base.Vaults, Loops: base.Loops, Tokens: base.Tokens,
		Unpriced: base.Unpriced, ChainTime: base.ChainTime}
	return &Sieve{p: p, now: now.Truncate(time.Second), base: base.SnapshotTime, state: state, scope: scope, out: out,
		quotes: map[quoteKey]QuoteObservation{}, kept: map[string]bool{}}
}

// Add evaluates one page: its loans, the CLMM positions they hold (for
// position policies) and the quotes read for them. Tokens and Unpriced are
// the page's view of what is known of mints; the sieve keeps the last
// page's, and SnapshotTime the oldest of the base's and the pages'. page is
// not kept: the sieve copies what it keeps.
//
// A page that carries the sieve's wallet and, as its Quotes, the best
// quote of every key the sieve has seen (what a walk that hands the same
// pages to many sieves accumulates) is evaluated as it is: the sieves of
// one walk and second then derive its facts once between them.
func (s *Sieve) Add(page *Observation) {
	s.out.Tokens, s.out.Unpriced = page.Tokens, page.Unpriced
	if t := page.SnapshotTime; !t.IsZero() && t.Before(s.out.SnapshotTime) {
		s.out.SnapshotTime = t
	}
	best := true // page.Quotes are the best of every key seen
	for _, q := range page.Quotes {
		k := quoteKey{q.PrincipalMint, q.Duration, q.Quote.CollateralIdentifier}
		if prev, ok := s.quotes[k]; !ok || q.Quote.Amount > prev.Quote.Amount {
			s.quotes[k] = q
		} else if q.Quote.Amount < prev.Quote.Amount {
			best = false
		}
	}
	pageObs := page
	if !best || len(page.Quotes) != len(s.quotes) || page.Wallet != s.out.Wallet {
		pageObs = &Observation{Wallet: s.out.Wallet, SnapshotTime: s.out.SnapshotTime, Loans: page.Loans,
			Positions: page.Positions, Quotes: s.quoteList(), Tokens: page.Tokens, Unpriced: page.Unpriced, ChainTime: s.out.ChainTime}
	}
	d := pageObs.facts(s.now)
	res := &Result{}
	e := &evaluator{p: s.p, obs: pageObs, d: d, nowUnix: s.now.Unix(), scope: s.scope,
		gate: newGate(s.p, page.Tokens, s.now, History{}, s.state, res), res: res}
	switch s.p.Target() {
	case TargetLoans:
		env := &loanEnv{Now: e.nowUnix}
		for i := range d.loans {
			le := &d.loans[i]
			if s.sift(e, func() { e.loan(le, env) }) {
				s.keepLoan(le.item)
			}
		}
	case TargetPositions:
		env := &positionEnv{Now: e.nowUnix}
		for i := range d.positions {
			pe := &d.positions[i]
			if !s.sift(e, func() { e.position(pe, env) }) {
				continue
			}
			s.out.Positions = append(s.out.Positions, *pe.obs)
			if pe.loan != nil {
				s.keepLoan(pe.loan.item)
			}
		}
	}
}

// sift runs one target's evaluation and reports whether it came to
// something: a skip, an action, a `for` timer or a limit reached. A target
// that came to nothing is counted in Dropped.
func (s *Sieve) sift(e *evaluator, eval func()) bool {
	mark := func() int {
		return len(e.res.Skipped) + len(e.res.Actions) + len(e.res.Cleared) + len(e.gate.pending) + e.gate.reached
	}
	before, evaluated := mark(), e.res.Evaluated
	eval()
	if mark() != before {
		return true
	}
	s.out.Dropped += e.res.Evaluated - evaluated
	return false
}

// keepLoan keeps a copy of item, once.
func (s *Sieve) keepLoan(item *market.LoanItem) {
	if s.kept[item.Loan.Address] {
		return
	}
	s.kept[item.Loan.Address] = true
	s.out.Loans = append(s.out.Loans, *item)
}

// quoteList returns the best quote of every key seen so far, in key order.
func (s *Sieve) quoteList() []QuoteObservation {
	out := make([]QuoteObservation, 0, len(s.quotes))
	for _, q := range s.quotes {
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b QuoteObservation) int {
		return cmp.Or(strings.Compare(a.PrincipalMint, b.PrincipalMint), strings.Compare(a.Duration.Key(), b.Duration.Key()),
			strings.Compare(a.Quote.CollateralIdentifier, b.Quote.CollateralIdentifier))
	})
	return out
}

// Observation returns what the sieve kept, ready for Evaluate at the
// sieve's time (Observation.SievedAt): the kept loans and positions, the
// best quote of every key the pages carried, and Dropped counting the rest.
func (s *Sieve) Observation() *Observation {
	s.out.Quotes = s.quoteList()
	s.out.sievedAt = s.now
	return s.out
}

// Reset drops everything kept: the pages are being read again (a walk
// whose pages carried different snapshots).
func (s *Sieve) Reset() {
	clear(s.quotes)
	clear(s.kept)
	s.out.Loans, s.out.Positions, s.out.Dropped, s.out.SnapshotTime = nil, nil, 0, s.base
}
