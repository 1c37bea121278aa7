package policies

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/keeper-project/keeper/keeper/market"
)

// apyChange is one changed term APY.
type apyChange struct {
	Collateral string      `json:"collateral"`
	Duration   string      `json:"duration"` // the duration-map key
	From       market.CBPS `json:"from"`
	To         market.CBPS `json:"to"`
	label      string
}

// allocChange is one changed allocation cap.
type allocChange struct {
	Collateral string `json:"collateral"`
	From       string `json:"from"`
	To         string `json:"to"`
}

// updateInputs are what a strategy-update decision used.
type updateInputs struct {
	APYs         []apyChange   `json:"apys"`
	Allocations  []allocChange `json:"allocations"`
	Originations *bool         `json:"originations,omitempty"`
}

// decide computes the terms the rules ask for and plans an E1
// request holding only the changes. A rule that fails on a term (an
// expression error, an APY outside [0, 10]) stops the whole update: terms
// are never changed from data that did not evaluate. A term whose rule
// follows a quote that was not observed keeps its APY.
func (sp *StrategyUpdateParams) decide(e *evaluator, ve *vaultEntry, env *vaultEnv) {
	addr := ve.facts.Address
	if !e.when(addr, env) {
		return
	}
	var in updateInputs
	var notes []string
	if err := sp.termChanges(e, ve, env, &in, &notes); err != nil {
		e.res.skip(addr, SkipError, err.Error())
		return
	}
	in.Allocations = allocChanges(ve, sp)
	if sp.originations != nil {
		v, ok := sp.originationsEnabled(e, addr, env)
		if !ok {
			return
		}
		if v != ve.strategy.OriginationsEnabled {
			in.Originations = &v
		}
	}
	if len(in.APYs)+len(in.Allocations) == 0 && in.Originations == nil {
		return
	}
	if !e.gate.ready(addr) {
		return
	}
	e.gate.plan(Action{
		Target: addr, Request: Request{StrategyUpdate: updateRequest(ve.facts.Strategy, &in)},
		Reason: updateReason(ve, &in, notes),
	}, in)
}

// originationsEnabled evaluates originations_enabled; false ok on an error.
func (sp *StrategyUpdateParams) originationsEnabled(e *evaluator, addr string, env *vaultEnv) (value, ok bool) {
	out, err := e.vm.Run(sp.originations, env)
	if err != nil {
		e.res.skip(addr, SkipError, "params.originations_enabled: "+firstLine(err.Error()))
		return false, false
	}
	v, _ := out.(bool)
	return v, true
}

// termChanges fills in.APYs with every term whose new APY differs from the
// current one by at least min_change_bps.
func (sp *StrategyUpdateParams) termChanges(e *evaluator, ve *vaultEntry, venv *vaultEnv, in *updateInputs, notes *[]string) error {
	terms := slices.Clone(ve.vault.VaultStrategy.CollateralTerms)
	slices.SortFunc(terms, func(a, b market.CollateralTerm) int { return strings.Compare(a.AssetIdentifier, b.AssetIdentifier) })
	env := &termEnv{Vault: venv.Vault, Strategy: venv.Strategy, Now: e.nowUnix}
	for _, t := range terms {
		apys, err := t.APYs()
		if err != nil {
			return fmt.Errorf("collateral %s: %w", shortKey(t.AssetIdentifier), err)
		}
		durs := make([]market.StrategyDuration, 0, len(apys))
		for d := range apys {
			durs = append(durs, d)
		}
		slices.SortFunc(durs, func(a, b market.StrategyDuration) int {
			return cmp.Or(cmp.Compare(a.DurationType, b.DurationType), cmp.Compare(a.Duration, b.Duration))
		})
		for _, d := range durs {
			if err := sp.termChange(e, ve, env, t.AssetIdentifier, d, apys[d], in, notes); err != nil {
				return err
			}
		}
	}
	return nil
}

// termChange decides one collateral and duration.
func (sp *StrategyUpdateParams) termChange(e *evaluator, ve *vaultEntry, env *termEnv, id string, d market.StrategyDuration,
	cur market.CBPS, in *updateInputs, notes *[]string) error {
	rule := apyRule(sp.Rules, id, d)
	if rule == nil {
		return nil
	}
	q, hasQuote := findQuote(ve.quotes, id, d.String())
	env.Collateral, env.Duration, env.DurationSeconds = id, d.String(), termSeconds(d)
	env.CurrentAPY, env.HasQuote, env.Quote = cur.Fraction(), hasQuote, &q
	l, hasLoop := findLoop(ve.loops, id)
	env.HasLoop, env.Loop = hasLoop, &l
	var apy float64
	if f := rule.FollowBestQuote; f != nil {
		if !hasQuote {
			*notes = append(*notes, fmt.Sprintf("no quote for %s %s", shortKey(id), d))
			return nil
		}
		apy = q.APY + float64(f.OffsetBps)/10_000
		if f.MinAPY != nil {
			apy = max(apy, *f.MinAPY)
		}
		if f.MaxAPY != nil {
			apy = min(apy, *f.MaxAPY)
		}
	} else {
		out, err := e.vm.Run(rule.apy, env)
		if err != nil {
			return fmt.Errorf("apy of %s %s: %s", shortKey(id), d, firstLine(err.Error()))
		}
		apy, _ = out.(float64)
	}
	if !(apy >= 0 && apy <= 10) {
		return fmt.Errorf("apy of %s %s: %g is outside [0, 10]", shortKey(id), d, apy)
	}
	next := market.CBPSFromFraction(apy)
	if diff := next - cur; next != cur && (diff >= market.CBPS(sp.MinChangeBps)*100 || -diff >= market.CBPS(sp.MinChangeBps)*100) {
		in.APYs = append(in.APYs, apyChange{Collateral: id, Duration: d.Key(), From: cur, To: next, label: d.String()})
	}
	return nil
}

// apyRule returns the first rule selecting collateral id and term d that
// sets an APY.
func apyRule(rules []StrategyRule, id string, d market.StrategyDuration) *StrategyRule {
	for i := range rules {
		r := &rules[i]
		if (r.APY != "" || r.FollowBestQuote != nil) && r.selects(id) && (r.durations == nil || slices.Contains(r.durations, d)) {
			return r
		}
	}
	return nil
}

// selects reports whether the rule selects collateral id.
func (r *StrategyRule) selects(id string) bool {
	return slices.Contains(r.Collaterals, "*") || slices.Contains(r.Collaterals, id)
}

func findQuote(qs []QuoteFacts, id, term string) (QuoteFacts, bool) {
	for _, q := range qs {
		if q.Collateral == id && q.Duration == term {
			return q, true
		}
	}
	return QuoteFacts{}, false
}

// termSeconds converts a term to seconds (a month is 30 days, a year 365).
func termSeconds(d market.StrategyDuration) int64 {
	unit := map[market.DurationType]int64{market.DurationMinutes: 60, market.DurationDays: 86_400,
		market.DurationWeeks: 7 * 86_400, market.DurationMonths: 30 * 86_400, market.DurationYears: 365 * 86_400}[d.DurationType]
	return unit * int64(d.Duration)
}

// allocChanges lists the allocation caps the rules change: for each
// collateral, the first rule selecting it with max_allocation_pct decides.
func allocChanges(ve *vaultEntry, sp *StrategyUpdateParams) []allocChange {
	var out []allocChange
	for _, t := range ve.strategy.Terms {
		for i := range sp.Rules {
			r := &sp.Rules[i]
			if r.MaxAllocationPct == nil || !r.selects(t.Collateral) {
				continue
			}
			raw := termAllocation(ve, t.Collateral)
			cur, err := strconv.ParseFloat(raw, 64)
			if err != nil || math.Abs(cur-*r.MaxAllocationPct) > 1e-9 {
				out = append(out, allocChange{Collateral: t.Collateral, From: raw, To: strconv.FormatFloat(*r.MaxAllocationPct, 'f', -1, 64)})
			}
			break
		}
	}
	return out
}

func termAllocation(ve *vaultEntry, id string) string {
	t, _ := ve.vault.Term(id)
	return t.MaxAllocationPct
}

// updateRequest builds the E1 body holding only the changes.
func updateRequest(strategy string, in *updateInputs) *market.StrategyUpdateRequest {
	req := &market.StrategyUpdateRequest{Strategy: strategy}
	if len(in.APYs)+len(in.Allocations) > 0 {
		ct := &market.CollateralTerms{}
		for _, c := range in.APYs {
			if ct.UpdateCollateral == nil {
				ct.UpdateCollateral = map[string]market.CollateralParamsUpdate{}
			}
			u := ct.UpdateCollateral[c.Collateral]
			if u.ApyUpdate == nil {
				u.ApyUpdate = map[string]string{}
			}
			u.ApyUpdate[c.Duration] = c.To.Decimal()
			ct.UpdateCollateral[c.Collateral] = u
		}
		for _, a := range in.Allocations {
			ct.UpdateAssetAllocation = append(ct.UpdateAssetAllocation, market.AssetAllocation{AssetIdentifier: a.Collateral, MaxAllocationPct: a.To})
		}
		req.CollateralTerms = ct
	}
	if in.Originations != nil {
		v := *in.Originations
		req.UpdateParams = &market.UpdateParams{OriginationsEnabled: &v}
	}
	return req
}

// updateReason lists the changes in words.
func updateReason(ve *vaultEntry, in *updateInputs, notes []string) string {
	var parts []string
	for _, c := range in.APYs {
		parts = append(parts, fmt.Sprintf("%s %s APY %s → %s", shortKey(c.Collateral), c.label, pct(c.From.Fraction()), pct(c.To.Fraction())))
	}
	for _, a := range in.Allocations {
		parts = append(parts, fmt.Sprintf("%s max allocation %s%% → %s%%", shortKey(a.Collateral), a.From, a.To))
	}
	if in.Originations != nil {
		parts = append(parts, fmt.Sprintf("originations %s → %s", onOff(!*in.Originations), onOff(*in.Originations)))
	}
	s := fmt.Sprintf("update strategy %s of vault %s: %s", shortKey(ve.facts.Strategy), shortKey(ve.facts.Address), strings.Join(parts, "; "))
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 2, 64) + "%" }

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
