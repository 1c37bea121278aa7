package policies

import (
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Amount is a token amount in a policy: smallest units as an integer
// (`max_amount: 500000000`), or a decimal number of whole tokens with a
// unit (`max_amount: 500 USDC`, `buffer: "0.5 So11…1112"`). The unit is the
// symbol or the mint address of the mint the amount is spent in; it is
// resolved for each target against that mint's decimals and symbol (from
// the chain, or `tokens:` in the config), so an amount in USDC never spends
// another token, and a number with more decimals than the mint has is
// refused rather than rounded.
type Amount struct {
	units uint64 // the amount, when written as an integer
	whole string // the decimal number, when written with a unit
	unit  string // the symbol or mint, when written with a unit
}

// UnitsOf returns an amount in smallest units (for tests and defaults).
func UnitsOf(n uint64) Amount { return Amount{units: n} }

// CheckYAML says why n is not an amount (strictyaml.Checker): the policy
// loader reports it at n's line and column with every other problem.
func (a *Amount) CheckYAML(n *yaml.Node) error {
	_, err := parseAmount(n)
	return err
}

// UnmarshalYAML reads an integer or "NUMBER UNIT".
func (a *Amount) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseAmount(n)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// ParseAmount reads an amount written on a command line: an integer of
// smallest units, or "NUMBER UNIT" as in a policy.
func ParseAmount(s string) (Amount, error) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: strings.TrimSpace(s), Tag: "!!str"}
	if n.Value != "" && strings.Trim(n.Value, "0123456789_") == "" {
		n.Tag = "!!int"
	}
	return parseAmount(n)
}

// parseAmount reads an amount node.
func parseAmount(n *yaml.Node) (Amount, error) {
	if n.Kind != yaml.ScalarNode {
		return Amount{}, errors.New("expected an integer amount in smallest units or a number with a unit such as \"300 USDC\"")
	}
	if n.Tag == "!!int" {
		v, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			return Amount{}, fmt.Errorf("%q is not an amount in smallest units (0 to %d)", n.Value, uint64(1<<64-1))
		}
		return Amount{units: v}, nil
	}
	num, unit, ok := strings.Cut(strings.TrimSpace(n.Value), " ")
	unit = strings.TrimSpace(unit)
	if !ok || unit == "" || strings.ContainsAny(unit, " \t") || !isDecimal(num) {
		return Amount{}, fmt.Errorf("%q is not an amount: write smallest units as an integer, or a number and the token's symbol or mint (\"300 USDC\")", n.Value)
	}
	return Amount{whole: num, unit: unit}, nil
}

// isDecimal reports a non-negative decimal number: digits, optionally a
// point and more digits.
func isDecimal(s string) bool {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return false
	}
	for _, part := range []string{whole, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}

// HasUnit reports an amount written with a unit.
func (a Amount) HasUnit() bool { return a.unit != "" }

// Unit returns the symbol or mint the amount was written with, or "".
func (a Amount) Unit() string { return a.unit }

// String is the amount as written.
func (a Amount) String() string {
	if a.HasUnit() {
		return a.whole + " " + a.unit
	}
	return strconv.FormatUint(a.units, 10)
}

// isZero reports an amount of nothing (as written).
func (a Amount) isZero() bool {
	if !a.HasUnit() {
		return a.units == 0
	}
	return strings.Trim(strings.ReplaceAll(a.whole, ".", ""), "0") == ""
}

// Units returns the amount in smallest units of mint, whose decimals and
// symbol tokens gives. An amount with a unit needs the mint's decimals, and
// its unit must be the mint's symbol (any case) or address.
func (a Amount) Units(mint string, tokens map[string]Token) (uint64, error) {
	if !a.HasUnit() {
		return a.units, nil
	}
	t, ok := tokens[mint]
	switch {
	case a.unit != mint && isAddress(a.unit):
		return 0, &OtherTokenError{fmt.Sprintf("%s is in %s, but the amount is spent in %s", a, shortKey(a.unit), formatMint(mint, t))}
	case !ok:
		return 0, fmt.Errorf("%s: the decimals of %s are unknown", a, shortKey(mint))
	case a.unit != mint && !strings.EqualFold(a.unit, t.Symbol):
		return 0, &OtherTokenError{fmt.Sprintf("%s is in %s, but the amount is spent in %s", a, a.unit, formatMint(mint, t))}
	}
	whole, frac, _ := strings.Cut(a.whole, ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > int(t.Decimals) {
		return 0, fmt.Errorf("%s has more decimals than %s's %d", a, formatMint(mint, t), t.Decimals)
	}
	digits := strings.TrimLeft(whole+frac+strings.Repeat("0", int(t.Decimals)-len(frac)), "0")
	var v uint64
	for _, d := range digits {
		hi, lo := bits.Mul64(v, 10)
		lo, carry := bits.Add64(lo, uint64(d-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, fmt.Errorf("%s is more than %d smallest units", a, uint64(1<<64-1))
		}
		v = lo
	}
	return v, nil
}

// OtherTokenError is the error of Amount.Units for an amount written in
// another token than the mint it is spent in: no target spending that mint
// can ever be acted on with it (unlike unknown decimals, which a later read
// may learn).
type OtherTokenError struct{ msg string }

func (e *OtherTokenError) Error() string { return e.msg }

// formatMint names a mint by its symbol and short address.
func formatMint(mint string, t Token) string {
	if t.Symbol == "" {
		return shortKey(mint)
	}
	return t.Symbol + " (" + shortKey(mint) + ")"
}

// AmountUse is an amount of a policy written with a unit, and the mints it
// is spent in when the policy names them.
type AmountUse struct {
	Path   string // e.g. params.max_amount
	Amount Amount
	// Mints are the mints the amount may be spent in as far as the policy
	// says: a daily cap's mint, a repay's select.principal_mints. Empty when
	// only the targets tell (a repay of any principal, a strategy-withdraw).
	Mints []string
}

// AmountsWithUnits lists p's amounts written with a unit.
func (p *Policy) AmountsWithUnits() []AmountUse {
	var out []AmountUse
	add := func(path string, a Amount, mints []string) {
		if a.HasUnit() {
			out = append(out, AmountUse{Path: path, Amount: a, Mints: mints})
		}
	}
	switch params := p.Params.(type) {
	case *RepayParams:
		add("params.min_amount", params.MinAmount, p.Select.PrincipalMints)
		add("params.max_amount", params.MaxAmount, p.Select.PrincipalMints)
	case *StrategyWithdrawParams:
		add("params.buffer", params.Buffer, nil)
		add("params.min_amount", params.MinAmount, nil)
	}
	for _, mint := range slices.Sorted(maps.Keys(p.Limits.DailyCaps)) {
		add("limits.daily_caps."+mint, p.Limits.DailyCaps[mint], []string{mint})
	}
	return out
}
