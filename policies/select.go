package policies

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/mr-tron/base58"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// selectField is one filter of Select, with the target types it applies to.
type selectField struct {
	key     string
	values  func(*Select) []string
	targets []Target
}

var selectFields = []selectField{
	{"loans", func(s *Select) []string { return s.Loans }, []Target{TargetLoans, TargetPositions}},
	{"borrowers", func(s *Select) []string { return s.Borrowers }, []Target{TargetLoans, TargetPositions}},
	{"principal_mints", func(s *Select) []string { return s.PrincipalMints }, []Target{TargetLoans, TargetPositions}},
	{"collateral_mints", func(s *Select) []string { return s.CollateralMints }, []Target{TargetLoans, TargetPositions}},
	{"collateral_identifiers", func(s *Select) []string { return s.CollateralIdentifiers }, []Target{TargetLoans, TargetPositions}},
	{"exclude_principal_mints", func(s *Select) []string { return s.ExcludePrincipalMints }, []Target{TargetLoans, TargetPositions}},
	{"exclude_collateral", func(s *Select) []string { return s.ExcludeCollateral }, []Target{TargetLoans, TargetPositions}},
	{"positions", func(s *Select) []string { return s.Positions }, []Target{TargetPositions}},
	{"vaults", func(s *Select) []string { return s.Vaults }, []Target{TargetWithdrawals, TargetVaults}},
}

// check validates select for the target type of p; false when the target
// type itself is unknown.
func (s *Select) check(b *builder, p *Policy) bool {
	if p.Kind == KindAlert {
		if !slices.Contains(targets, s.Target) {
			b.fail([]any{"select", "target"}, "select.target must be one of loans, positions, withdrawals, vaults, got %q", s.Target)
			return false
		}
	} else if s.Target != "" {
		b.fail([]any{"select", "target"}, "select.target is only for alerts (a %s policy's targets are %s)", p.Kind, p.Kind.target())
	}
	t := p.Target()
	for _, f := range selectFields {
		vals := f.values(s)
		if len(vals) == 0 {
			continue
		}
		if !slices.Contains(f.targets, t) {
			b.fail([]any{"select", f.key}, "select.%s does not apply to %s", f.key, t)
			continue
		}
		b.checkAddresses([]any{"select", f.key}, "select."+f.key, vals)
	}
	if t == TargetWithdrawals && len(s.Vaults) == 0 {
		b.fail([]any{"select"}, "select.vaults is required for withdrawals: the earn vaults whose queues to read")
	}
	return true
}

// checkAddresses reports list entries that are not base58 addresses, and
// duplicates.
func (b *builder) checkAddresses(path []any, what string, vals []string) {
	seen := map[string]bool{}
	for i, v := range vals {
		at := append(slices.Clone(path), i)
		switch {
		case !isAddress(v):
			b.fail(at, "%s[%d]: %s is not a base58 address%s", what, i, strictyaml.NameExcerpt(v), notAddress(v))
		case seen[v]:
			b.fail(at, "%s[%d]: %q is listed twice", what, i, v)
		}
		seen[v] = true
	}
}

// maxAddressLen is the most base58 characters of a 32-byte address.
const maxAddressLen = 44

// isAddress reports whether s is a Solana address: base58 that decodes to
// 32 bytes.
func isAddress(s string) bool { return decodedLen(s) == solana.PublicKeyLength }

// decodedLen is the number of bytes base58 s decodes to, or -1 when s is
// not base58 or longer than any address.
func decodedLen(s string) int {
	if len(s) > maxAddressLen {
		return -1
	}
	b, err := base58.Decode(s)
	if err != nil {
		return -1
	}
	return len(b)
}

// minAddressLen is the fewest base58 characters of a 32-byte address.
const minAddressLen = 32

// notAddress completes "X is not a base58 address" for s, which is not one:
// when s has an address's form (32 to 44 base58 characters) but decodes to
// another length, it says so.
func notAddress(s string) string {
	if n := decodedLen(s); n >= 0 && len(s) >= minAddressLen {
		return fmt.Sprintf(": it decodes to %d bytes, an address to %d", n, solana.PublicKeyLength)
	}
	return ""
}

// anyIn reports whether set is empty or holds v. Sets are short lists.
func anyIn(set []string, v string) bool {
	if len(set) == 0 {
		return true
	}
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

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

// unscoped reports whether the evaluation covers every target (a scheduled
// run): callers check it first, so that the scope's iterators are not even
// made for each target of such a run.
func (e *evaluator) unscoped() bool { return e.scope == nil }

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
	e.gate.keep(key)
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
