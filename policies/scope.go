package policies

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Scope limits an evaluation to the targets a chain change touched: a
// triggered run evaluates only them. A target is in scope when its key or
// one of its accounts (a loan's collateral pool, a position's pool or loan,
// a request's vault) is in Accounts, or when a mint it holds, owes or is
// priced in is in Mints. A nil *Scope is every target.
type Scope struct {
	Mints    map[string]bool
	Accounts map[string]bool
}

// String lists the scope's accounts and mints, sorted; nil is "every target".
func (s *Scope) String() string {
	if s == nil {
		return "every target"
	}
	var parts []string
	for _, a := range slices.Sorted(maps.Keys(s.Accounts)) {
		parts = append(parts, "account "+a)
	}
	for _, m := range slices.Sorted(maps.Keys(s.Mints)) {
		parts = append(parts, "mint "+m)
	}
	return strings.Join(parts, ", ")
}

// inScope reports whether the evaluation covers target key; a target out
// of scope keeps its `for` timer.
func (e *evaluator) inScope(key string, accounts, mints func(yield func(string) bool)) bool {
	s := e.scope
	if s == nil || s.Accounts[key] {
		return true
	}
	for a := range accounts {
		if s.Accounts[a] {
			return true
		}
	}
	for m := range mints {
		if s.Mints[m] {
			return true
		}
	}
	if since, ok := e.state.pendingSince(key); ok && e.pending != nil {
		e.pending[key] = since
	}
	return false
}

// pendingSince returns when target's condition started to hold, as the
// state last recorded it.
func (s *State) pendingSince(target string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, ok := s.PendingSince[target]
	return t, ok
}

// loanScope yields a loan's collateral identifiers, and its principal and
// collateral mints.
func loanScope(le *loanEntry) (accounts, mints func(func(string) bool)) {
	it := le.item
	accounts = func(yield func(string) bool) {
		for _, c := range it.Collateral {
			if !yield(c.AssetIdentifier) {
				return
			}
		}
	}
	mints = func(yield func(string) bool) {
		for _, l := range it.Ledgers {
			if !yield(l.PrincipalMint) {
				return
			}
		}
		for _, c := range it.Collateral {
			if !yield(c.AssetMint) {
				return
			}
		}
	}
	return accounts, mints
}

// positionScope yields a position's pool and loan, and its pool's mints
// and the holding loan's mints.
func positionScope(pe *positionEntry) (accounts, mints func(func(string) bool)) {
	accounts = func(yield func(string) bool) {
		_ = yield(pe.facts.Pool) && yield(pe.facts.Loan)
	}
	mints = func(yield func(string) bool) {
		if st := &pe.obs.State; st.Err == nil {
			if !yield(st.Pool.Mint0.String()) || !yield(st.Pool.Mint1.String()) {
				return
			}
		}
		if pe.loan != nil {
			_, lm := loanScope(pe.loan)
			lm(yield)
		}
	}
	return accounts, mints
}

// one yields v.
func one(v string) func(func(string) bool) {
	return func(yield func(string) bool) { yield(v) }
}

// none yields nothing.
func none(func(string) bool) {}
