package keeper

import (
	"context"
	"errors"
	"log/slog"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/policies"
)

// ErrActionsFailed reports a run in which some action failed, was refused
// or is still unsettled; the error is an *ActionsError saying which.
var ErrActionsFailed = errors.New("some actions failed, were refused or are unsettled")

// runSummary is what one run of a policy did: how many targets it
// evaluated, and how many of its planned actions ended each way (alerts
// fired count as "alert").
type runSummary struct {
	Evaluated int
	Actions   map[action.Outcome]int
}

// runPolicy is one run of policy p: observe, evaluate, act on each planned
// action along the action path, and report.
func (k *Keeper) runPolicy(ctx context.Context, run RunInfo, p *policies.Policy) (runSummary, error) {
	var sum runSummary
	log := k.logger.With("policy", p.Name, "run", run.ID)
	readsFrom := k.now()
	obs, err := k.obs.observe(ctx, p)
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
	count := func(o action.Outcome) {
		if sum.Actions == nil {
			sum.Actions = map[action.Outcome]int{}
		}
		sum.Actions[o]++
	}
	k.exec.Supersede(ctx, expired, plannedTargets(res))
	k.logSkips(log, p, res)
	notDone := &ActionsError{}
	firing := map[string]bool{}
	for _, a := range res.Actions {
		if a.Alert != nil {
			k.fireAlert(p, a)
			firing[a.Target] = true
			count(action.OutcomeAlert)
			continue
		}
		plan := action.FromAction(a, k.dryRunAll)
		plan.ReadsFrom = readsFrom
		o := k.exec.Execute(ctx, run.ID, plan)
		count(o)
		notDone.add(plan, o)
	}
	if p.Kind == policies.KindAlert {
		k.resolveAlerts(p, firing)
	}
	log.Debug("Policy run done", "evaluated", res.Evaluated, "actions", len(res.Actions), "skipped", len(res.Skipped))
	return sum, notDone.err()
}

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

// fireAlert opens (or keeps open) the incident of an alert policy's target.
func (k *Keeper) fireAlert(p *policies.Policy, a policies.Action) {
	k.metrics.Actions.WithLabelValues(p.Name, string(p.Kind), string(action.OutcomeAlert)).Inc()
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
