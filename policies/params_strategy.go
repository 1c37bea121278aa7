package policies

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/vm"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/market"
)

// StrategyUpdateParams are the params of a strategy-update policy.
type StrategyUpdateParams struct {
	// Rules set collateral terms; for each collateral and duration the
	// first rule that selects it and sets an APY decides the APY, and the
	// first that selects it and sets max_allocation_pct decides the cap.
	Rules []StrategyRule `yaml:"rules"`
	// MinChangeBps is the dead-band: an APY changes only when it moves by
	// at least this many basis points (default 10).
	MinChangeBps int64 `yaml:"min_change_bps"`
	// OriginationsEnabled is a boolean expression over the vault's facts;
	// when set, the strategy's originationsEnabled follows it.
	OriginationsEnabled string `yaml:"originations_enabled"`

	originations *vm.Program
}

// Kind returns KindStrategyUpdate.
func (*StrategyUpdateParams) Kind() Kind { return KindStrategyUpdate }

// StrategyRule selects collaterals and durations and sets their terms.
type StrategyRule struct {
	// Collaterals are asset identifiers, or "*" for every collateral of the
	// strategy.
	Collaterals []string `yaml:"collaterals"`
	// Durations are terms such as "7 days", "1 week", "3 months",
	// "30 minutes", "1 year"; empty or "*" selects every duration the
	// strategy offers for the collateral.
	Durations []string `yaml:"durations"`
	// APY is a number expression giving the APY as a fraction.
	APY string `yaml:"apy"`
	// FollowBestQuote sets the APY from the best quote instead.
	FollowBestQuote *FollowBestQuote `yaml:"follow_best_quote"`
	// MaxAllocationPct caps the collateral's share of the strategy, in
	// percent (0, 100].
	MaxAllocationPct *float64 `yaml:"max_allocation_pct"`

	apy       *vm.Program
	durations []market.StrategyDuration // nil: all
}

// FollowBestQuote sets the APY to the best quote's APY plus OffsetBps,
// clamped to [MinAPY, MaxAPY] (fractions; unset bounds do not clamp).
type FollowBestQuote struct {
	OffsetBps int64    `yaml:"offset_bps"`
	MinAPY    *float64 `yaml:"min_apy"`
	MaxAPY    *float64 `yaml:"max_apy"`
}

func (s *StrategyUpdateParams) check(b *builder, _ *Policy) {
	if !b.has("params", "min_change_bps") {
		s.MinChangeBps = 10
	} else if s.MinChangeBps < 0 {
		b.fail([]any{"params", "min_change_bps"}, "params.min_change_bps must not be negative, got %d", s.MinChangeBps)
	}
	if len(s.Rules) == 0 && s.OriginationsEnabled == "" {
		b.fail([]any{"params"}, "params: set rules, originations_enabled, or both")
	}
	for i := range s.Rules {
		s.Rules[i].check(b, i)
	}
	if b.has("params", "originations_enabled") {
		n := strictyaml.Find(b.node, "params", "originations_enabled")
		s.originations = b.r.compileAt(n, b.name, "params.originations_enabled", vaultEnv{}, reflect.Bool)
	}
}

func (r *StrategyRule) check(b *builder, i int) {
	at := func(keys ...any) []any { return append([]any{"params", "rules", i}, keys...) }
	name := fmt.Sprintf("params.rules[%d]", i)
	if len(r.Collaterals) == 0 {
		b.fail(at(), "%s.collaterals is required (asset identifiers, or \"*\")", name)
	}
	for j, c := range r.Collaterals {
		if c != "*" && !isAddress(c) {
			b.fail(at("collaterals", j), "%s.collaterals[%d]: %s is neither \"*\" nor a base58 asset identifier%s", name, j, strictyaml.NameExcerpt(c), notAddress(c))
		}
	}
	r.checkDurations(b, at, name)
	hasAPY, hasQuote := b.has(at("apy")...), r.FollowBestQuote != nil
	switch {
	case hasAPY && hasQuote:
		b.fail(at("follow_best_quote"), "%s: set only one of apy and follow_best_quote", name)
	case !hasAPY && !hasQuote && r.MaxAllocationPct == nil:
		b.fail(at(), "%s: set apy, follow_best_quote or max_allocation_pct", name)
	}
	if hasAPY {
		r.apy = b.r.compileAt(strictyaml.Find(b.node, at("apy")...), b.name, name+".apy", termEnv{}, reflect.Float64)
	}
	if hasQuote {
		r.FollowBestQuote.check(b, at, name)
	}
	if m := r.MaxAllocationPct; m != nil && !(*m > 0 && *m <= 100) {
		b.fail(at("max_allocation_pct"), "%s.max_allocation_pct must lie in (0, 100], got %g", name, *m)
	}
}

func (r *StrategyRule) checkDurations(b *builder, at func(...any) []any, name string) {
	for j, d := range r.Durations {
		if d == "*" {
			r.durations = nil
			if len(r.Durations) > 1 {
				b.fail(at("durations", j), "%s.durations: \"*\" must stand alone", name)
			}
			return
		}
		sd, err := ParseTerm(d)
		if err != nil {
			b.fail(at("durations", j), "%s.durations[%d]: %v", name, j, err)
			continue
		}
		r.durations = append(r.durations, sd)
	}
}

func (f *FollowBestQuote) check(b *builder, at func(...any) []any, name string) {
	for _, k := range []struct {
		key string
		v   *float64
	}{{"min_apy", f.MinAPY}, {"max_apy", f.MaxAPY}} {
		if k.v != nil && !(*k.v >= 0 && *k.v <= 10) {
			b.fail(at("follow_best_quote", k.key), "%s.follow_best_quote.%s must lie in [0, 10] (a fraction: 0.08 is 8 %%), got %g", name, k.key, *k.v)
		}
	}
	if f.MinAPY != nil && f.MaxAPY != nil && *f.MinAPY > *f.MaxAPY {
		b.fail(at("follow_best_quote", "min_apy"), "%s.follow_best_quote.min_apy (%g) is above max_apy (%g)", name, *f.MinAPY, *f.MaxAPY)
	}
}

// termUnits maps the unit words of a term to duration types.
var termUnits = map[string]market.DurationType{
	"day": market.DurationDays, "week": market.DurationWeeks, "month": market.DurationMonths,
	"minute": market.DurationMinutes, "year": market.DurationYears,
}

// ParseTerm parses a loan term as policy files write it: a count and a
// unit, "7 days", "1 week", "3 months", "30 minutes", "1 year" (singular or
// plural).
func ParseTerm(s string) (market.StrategyDuration, error) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	n, err := strconv.ParseInt(num, 10, 32)
	dt, known := termUnits[strings.TrimSuffix(strings.TrimSpace(unit), "s")]
	if !ok || err != nil || n < 0 || !known {
		return market.StrategyDuration{}, fmt.Errorf("%q is not a term such as \"7 days\" (units: minutes, days, weeks, months, years)", s)
	}
	return market.StrategyDuration{DurationType: dt, Duration: int32(n)}, nil
}
