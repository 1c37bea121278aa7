package policies

import (
	"slices"
	"strings"
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

// checkSelect validates select for the policy's target type; false when
// the target type itself is unknown.
func (b *builder) checkSelect(p *Policy) bool {
	s := &p.Select
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
		case !looksLikeAddress(v):
			b.fail(at, "%s[%d]: %q is not a base58 address", what, i, v)
		case seen[v]:
			b.fail(at, "%s[%d]: %q is listed twice", what, i, v)
		}
		seen[v] = true
	}
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// looksLikeAddress reports whether s has the form of a base58 Solana
// address: 32 to 44 characters of the base58 alphabet.
func looksLikeAddress(s string) bool {
	if len(s) < 32 || len(s) > 44 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(base58Alphabet, s[i]) < 0 {
			return false
		}
	}
	return true
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
