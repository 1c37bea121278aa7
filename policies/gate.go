package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// gate applies one evaluation's limits to the targets whose condition
// holds and to the actions planned for them: the `for` timers, in-flight
// actions and the cooldown from the journal, the per-run cap and the daily
// caps. It records what it lets through, and why it stops the rest, in the
// result.
type gate struct {
	p       *Policy
	tokens  map[string]Token
	now     time.Time
	hist    History
	state   *State
	pending map[string]time.Time // targets whose condition holds, since when
	spent   map[string]uint64    // outflow planned in this evaluation, per mint
	fees    uint64               // fees and tips planned in this evaluation
	res     *Result
	reached int // targets whose condition held: calls of ready
}

// newGate returns the gate of one evaluation of p, writing into res.
func newGate(p *Policy, tokens map[string]Token, now time.Time, hist History, state *State, res *Result) *gate {
	g := &gate{p: p, tokens: tokens, now: now, hist: hist, state: state, res: res}
	if p.For > 0 {
		g.pending = map[string]time.Time{}
	}
	return g
}

// ready applies `for`, in-flight actions and the cooldown to a target whose
// condition holds; false (with a skip recorded) when it must wait.
func (g *gate) ready(target string) bool {
	g.reached++
	if g.p.For > 0 {
		since, ok := time.Time{}, false
		if g.state != nil {
			since, ok = g.state.PendingSince[target]
		}
		if !ok || since.After(g.now) {
			since = g.now
		}
		g.pending[target] = since
		if held := g.now.Sub(since); held < g.p.For {
			g.res.skip(target, SkipFor, fmt.Sprintf("condition has held for %s of %s", held, g.p.For))
			return false
		}
	}
	th := g.hist.Targets[target]
	if th.InFlight {
		g.res.skip(target, SkipInFlight, "an earlier action on this target is not settled")
		return false
	}
	if cd := g.p.Limits.Cooldown; cd > 0 && !th.LastAction.IsZero() {
		if left := th.LastAction.Add(cd).Sub(g.now); left > 0 {
			g.res.skip(target, SkipCooldown, fmt.Sprintf("last action %s ago, cooldown %s", g.now.Sub(th.LastAction), cd))
			return false
		}
	}
	return true
}

// keep carries the `for` timer of a target the evaluation does not cover
// (out of scope) over to the next run, as the state last recorded it.
func (g *gate) keep(target string) {
	if since, ok := g.state.pendingSince(target); ok && g.pending != nil {
		g.pending[target] = since
	}
}

// remaining returns what mint's daily cap still allows, and false when the
// policy has no cap for mint. A cap that cannot be resolved in mint (its
// decimals unknown) allows nothing: the cap fails closed.
func (g *gate) remaining(mint string) (uint64, bool) {
	c, ok := g.p.Limits.DailyCaps[mint]
	if !ok {
		return 0, false
	}
	limit, err := c.Units(mint, g.tokens)
	if err != nil {
		return 0, true
	}
	used := g.hist.SpentToday[mint] + g.spent[mint]
	if used >= limit {
		return 0, true
	}
	return limit - used, true
}

// capDaily lowers amount to what the daily cap of mint leaves; false (with
// a skip) when that is below min (or nothing).
func (g *gate) capDaily(target, mint string, amount, minAmount uint64, notes []string) (uint64, []string, bool) {
	left, capped := g.remaining(mint)
	if !capped || amount <= left {
		if amount == 0 {
			g.res.skip(target, SkipNoop, "nothing is outstanding to repay")
			return 0, notes, false
		}
		return amount, notes, true
	}
	if left == 0 || left < minAmount {
		g.res.skip(target, SkipDailyCap, fmt.Sprintf("needs %s but the daily cap leaves %s", FormatAmount(amount, mint, g.tokens), FormatAmount(left, mint, g.tokens)))
		return 0, notes, false
	}
	return left, append(notes, "capped by the daily cap"), true
}

// plan completes a (with the policy's settings, lamport bound and ID),
// applies the per-run cap, the daily caps and the fee cap, and records it
// when they allow. inputs are the decision's inputs, hashed into the ID.
func (g *gate) plan(a Action, inputs any) {
	p := g.p
	a.Policy, a.Kind, a.Notify, a.DryRun = p.Name, p.Kind, p.Notify, p.DryRun
	a.Authority = p.Authority
	if p.Kind.Writes() {
		a.Submit = p.Submit
		a.Bounds.MaxLamports = p.Submit.MaxFeeLamports + p.Submit.MaxRentLamports
	}
	if n := g.hist.ActionsThisRun + len(g.res.Actions); n >= p.Limits.MaxActionsPerRun {
		g.res.skip(a.Target, SkipRunCap, fmt.Sprintf("%d actions already planned this run (max_actions_per_run %d)", n, p.Limits.MaxActionsPerRun))
		return
	}
	for mint, amount := range a.Bounds.MaxOutflow {
		if left, capped := g.remaining(mint); capped && amount > left {
			g.res.skip(a.Target, SkipDailyCap, fmt.Sprintf("needs %s but the daily cap leaves %s", FormatAmount(amount, mint, g.tokens), FormatAmount(left, mint, g.tokens)))
			return
		}
	}
	cost := p.Submit.MaxFeeLamports + p.Submit.TipLamports
	if limit := p.Limits.DailyFeeLamports; p.Kind.Writes() && limit > 0 && g.hist.FeesToday+g.fees+cost > limit {
		g.res.skip(a.Target, SkipFeeCap, fmt.Sprintf("fees up to %s would pass the daily fee cap %s (daily_fee_lamports %d; %s spent)",
			FormatSOL(cost), FormatSOL(limit), limit, FormatSOL(g.hist.FeesToday+g.fees)))
		return
	}
	for mint, amount := range a.Bounds.MaxOutflow {
		if g.spent == nil {
			g.spent = map[string]uint64{}
		}
		g.spent[mint] += amount
	}
	if p.Kind.Writes() {
		g.fees += cost
	}
	a.ID = actionID(&a, inputs)
	a.Inputs, _ = json.Marshal(inputs) // a non-finite float, the one failure, leaves none
	g.res.Actions = append(g.res.Actions, a)
}

// actionIDVersion changes when the ID's contents change meaning.
const actionIDVersion = 1

// actionID returns the sha256 (hex) of the canonical JSON of the action's
// identity: policy, kind, target, the decision's inputs, the request, the
// guard bounds and the alert. encoding/json writes struct fields in order
// and map keys sorted, so equal inputs always give equal bytes.
func actionID(a *Action, inputs any) string {
	h := sha256.New()
	id := struct {
		V       int     `json:"v"`
		Policy  string  `json:"policy"`
		Kind    Kind    `json:"kind"`
		Target  string  `json:"target"`
		Inputs  any     `json:"inputs"`
		Request Request `json:"request"`
		Bounds  Bounds  `json:"bounds"`
		Submit  Submit  `json:"submit"`
		Alert   *Alert  `json:"alert,omitempty"`
	}{actionIDVersion, a.Policy, a.Kind, a.Target, inputs, a.Request, a.Bounds, a.Submit, a.Alert}
	if err := json.NewEncoder(h).Encode(id); err != nil {
		// Only a non-finite float in inputs can fail; hash its text instead.
		id.Inputs = fmt.Sprintf("%v", inputs)
		h.Reset()
		_ = json.NewEncoder(h).Encode(id)
	}
	return hex.EncodeToString(h.Sum(nil))
}
