package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// ErrActionsFailed reports a run in which some action failed, was refused
// or is still unsettled; the error is an *ActionsError saying which.
var ErrActionsFailed = errors.New("some actions failed, were refused or are unsettled")

// runSummary is what one run of a policy did: how many targets it
// evaluated, and how many of its planned actions ended each way (alerts
// fired count as "alert").
type runSummary struct {
	Evaluated int
	Actions   map[Outcome]int
}

// runPolicy is one run of policy p: observe, evaluate, act on each planned
// action along the action path, and report.
func (k *Keeper) runPolicy(ctx context.Context, run RunInfo, p *policies.Policy) (runSummary, error) {
	var sum runSummary
	log := k.logger.With("policy", p.Name, "run", run.ID)
	readsFrom := k.now()
	obs, err := k.observe(ctx, p)
	if err != nil {
		log.Warn("Cannot observe; skipping this run", "err", err)
		return sum, err
	}
	now := k.now()
	hist, expired, err := k.historyAndExpired(ctx, p, now)
	if err != nil {
		log.Error("Cannot read the journal; not acting", "err", err)
		return sum, err
	}
	res, err := policies.Evaluate(p, obs, now, hist, k.policyState(p.Name))
	if err != nil {
		log.Error("Evaluation failed", "err", err)
		return sum, err
	}
	sum.Evaluated = res.Evaluated
	count := func(o Outcome) {
		if sum.Actions == nil {
			sum.Actions = map[Outcome]int{}
		}
		sum.Actions[o]++
	}
	k.supersede(ctx, expired, res)
	k.logSkips(log, p, res)
	notDone := &ActionsError{}
	firing := map[string]bool{}
	for _, a := range res.Actions {
		if a.Alert != nil {
			k.fireAlert(p, a)
			firing[a.Target] = true
			count(outcomeAlert)
			continue
		}
		plan := k.planOf(a)
		plan.ReadsFrom = readsFrom
		o := k.execute(ctx, run, plan)
		count(o)
		notDone.add(plan, o)
	}
	if p.Kind == policies.KindAlert {
		k.resolveAlerts(p, firing)
	}
	log.Debug("Policy run done", "evaluated", res.Evaluated, "actions", len(res.Actions), "skipped", len(res.Skipped))
	return sum, notDone.err()
}

// outcomeAlert counts an alert fired in a run summary.
const outcomeAlert Outcome = "alert"

func (k *Keeper) logSkips(log *slog.Logger, p *policies.Policy, res policies.Result) {
	for _, s := range res.Skipped {
		if s.Reason == policies.SkipStale {
			k.metrics.RunsSkipped.WithLabelValues(p.Name, "stale_data").Inc()
			log.Warn("Data too old to act on", "detail", s.Detail)
			continue
		}
		log.Debug("Target not acted on", "target", s.Target, "reason", s.Reason, "detail", s.Detail)
	}
}

// planOf turns a planned action into the action path's plan.
func (k *Keeper) planOf(a policies.Action) Plan {
	p := Plan{ID: a.ID, Policy: a.Policy, Kind: signer.Kind(a.Kind), Target: a.Target, Request: deref(a.Request.Body()),
		Bounds: signer.Bounds{MaxLamports: a.Bounds.MaxLamports, MaxTokens: a.Bounds.MaxOutflow,
			MaxComputeUnitPrice: a.Submit.MaxComputeUnitPrice},
		Reason: a.Reason, Submit: Submit{Mode: journal.Mode(a.Submit.Mode), TipCap: a.Submit.TipLamports},
		DryRun: a.DryRun || k.dryRunAll, Notify: a.Notify.To, NotifyOn: events(a.Notify)}
	if p.Submit.Mode == "" {
		p.Submit.Mode = journal.ModeRPC
	}
	for mint, amount := range a.Bounds.MaxOutflow {
		p.Mint, p.Amount = mint, amount // at most one mint is spent by an action
	}
	p.Inputs, _ = json.Marshal(a.Request)
	return p
}

// deref returns the value a non-nil pointer points to, as the build
// dispatch expects request values.
func deref(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return rv.Elem().Interface()
	}
	return v
}

func events(n policies.Notify) []notify.Event {
	out := make([]notify.Event, 0, len(n.On))
	for _, e := range n.On {
		out = append(out, notify.Event(e))
	}
	return out
}

// fireAlert opens (or keeps open) the incident of an alert policy's target.
func (k *Keeper) fireAlert(p *policies.Policy, a policies.Action) {
	k.metrics.Actions.WithLabelValues(p.Name, string(p.Kind), string(outcomeAlert)).Inc()
	k.alertsMu.Lock()
	if k.firing[p.Name] == nil {
		k.firing[p.Name] = map[string]bool{}
	}
	already := k.firing[p.Name][a.Target]
	k.firing[p.Name][a.Target] = true
	k.alertsMu.Unlock()
	level := slog.LevelInfo
	if already {
		level = slog.LevelDebug // one Info line per incident, not one per tick
	}
	k.logger.Log(context.Background(), level, "Alert", "policy", p.Name, "target", a.Target, "severity", a.Alert.Severity, "message", a.Alert.Message)
	k.notifier.Condition(notify.Message{Policy: p.Name, Kind: string(p.Kind), Target: a.Target, Severity: string(a.Alert.Severity),
		Reason: a.Alert.Message, To: a.Notify.To, Time: k.now()}, true)
}

// resolveAlerts closes the incidents of targets that no longer fire.
func (k *Keeper) resolveAlerts(p *policies.Policy, firing map[string]bool) {
	k.alertsMu.Lock()
	var cleared []string
	for target := range k.firing[p.Name] {
		if !firing[target] {
			cleared = append(cleared, target)
			delete(k.firing[p.Name], target)
		}
	}
	k.alertsMu.Unlock()
	for _, target := range cleared {
		k.logger.Info("Alert resolved", "policy", p.Name, "target", target)
		k.notifier.Condition(notify.Message{Policy: p.Name, Kind: string(p.Kind), Target: target, Time: k.now()}, false)
	}
}

// policyState returns the `for` state kept for a policy across runs.
func (k *Keeper) policyState(name string) *policies.State {
	k.alertsMu.Lock()
	defer k.alertsMu.Unlock()
	s, ok := k.states[name]
	if !ok {
		s = &policies.State{}
		k.states[name] = s
	}
	return s
}
