package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// ready applies `for`, in-flight actions and the cooldown to a target whose
// condition holds; false (with a skip recorded) when it must wait.
func (e *evaluator) ready(target string) bool {
	if e.p.For > 0 {
		since, ok := time.Time{}, false
		if e.state != nil {
			since, ok = e.state.PendingSince[target]
		}
		if !ok || since.After(e.now) {
			since = e.now
		}
		e.pending[target] = since
		if held := e.now.Sub(since); held < e.p.For {
			e.skip(target, SkipFor, fmt.Sprintf("condition has held for %s of %s", held, e.p.For))
			return false
		}
	}
	th := e.hist.Targets[target]
	if th.InFlight {
		e.skip(target, SkipInFlight, "an earlier action on this target is not settled")
		return false
	}
	if cd := e.p.Limits.Cooldown; cd > 0 && !th.LastAction.IsZero() {
		if left := th.LastAction.Add(cd).Sub(e.now); left > 0 {
			e.skip(target, SkipCooldown, fmt.Sprintf("last action %s ago, cooldown %s", e.now.Sub(th.LastAction), cd))
			return false
		}
	}
	return true
}

// remaining returns what mint's daily cap still allows, and false when the
// policy has no cap for mint. A cap that cannot be resolved in mint (its
// decimals unknown) allows nothing: the cap fails closed.
func (e *evaluator) remaining(mint string) (uint64, bool) {
	c, ok := e.p.Limits.DailyCaps[mint]
	if !ok {
		return 0, false
	}
	limit, err := c.Units(mint, e.obs.Tokens)
	if err != nil {
		return 0, true
	}
	used := e.hist.SpentToday[mint] + e.spent[mint]
	if used >= limit {
		return 0, true
	}
	return limit - used, true
}

// plan completes a (with the policy's settings, lamport bound and ID),
// applies the per-run cap, the daily caps and the fee cap, and records it
// when they allow. inputs are the decision's inputs, hashed into the ID.
func (e *evaluator) plan(a Action, inputs any) {
	p := e.p
	a.Policy, a.Kind, a.Notify, a.DryRun = p.Name, p.Kind, p.Notify, p.DryRun
	if p.Kind.Writes() {
		a.Submit = p.Submit
		a.Bounds.MaxLamports = p.Submit.MaxFeeLamports + p.Submit.MaxRentLamports
	}
	if n := e.hist.ActionsThisRun + len(e.res.Actions); n >= p.Limits.MaxActionsPerRun {
		e.skip(a.Target, SkipRunCap, fmt.Sprintf("%d actions already planned this run (max_actions_per_run %d)", n, p.Limits.MaxActionsPerRun))
		return
	}
	for mint, amount := range a.Bounds.MaxOutflow {
		if left, capped := e.remaining(mint); capped && amount > left {
			e.skip(a.Target, SkipDailyCap, fmt.Sprintf("needs %d of %s but the daily cap leaves %d", amount, shortKey(mint), left))
			return
		}
	}
	cost := p.Submit.MaxFeeLamports + p.Submit.TipLamports
	if limit := p.Limits.DailyFeeLamports; p.Kind.Writes() && limit > 0 && e.hist.FeesToday+e.fees+cost > limit {
		e.skip(a.Target, SkipFeeCap, fmt.Sprintf("fees up to %d lamports would pass daily_fee_lamports %d (spent %d)",
			cost, limit, e.hist.FeesToday+e.fees))
		return
	}
	for mint, amount := range a.Bounds.MaxOutflow {
		if e.spent == nil {
			e.spent = map[string]uint64{}
		}
		e.spent[mint] += amount
	}
	if p.Kind.Writes() {
		e.fees += cost
	}
	a.ID = actionID(&a, inputs)
	e.res.Actions = append(e.res.Actions, a)
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
