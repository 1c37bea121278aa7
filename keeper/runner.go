package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/policies"
)

// ErrActionsFailed reports a run in which some action failed, was refused
// or is still unsettled; the error is an *ActionsError saying which.
var ErrActionsFailed = errors.New("some actions failed, were refused or are unsettled")

// runner runs one policy, as Prometheus' rule group runs its rules: it owns
// the policy, its `for` state and its last run's status (alert incidents
// live in the journal, so they outlive the process). A reload hands it the policy's new version (setPolicy); the state
// carries across. Runs of one runner never overlap (the scheduler skips a
// tick while the previous run runs).
type runner struct {
	k *Keeper // the observer, the executor and the journal the runs use

	mu     sync.Mutex
	policy *policies.Policy
	state  *policies.State // `for` state, kept across runs and reloads
	last   *runStatus      // nil before the first scheduled run
	// incidents are an alert policy's incidents as the runs know them.
	incidents alertIncidents
	// warnedUnit is set once the policy's first target skipped for an
	// amount in another token is logged at WARN (policies.SkipUnit): the
	// policy can never act on it, which the log says once, not every pass.
	warnedUnit atomic.Bool
}

func newRunner(k *Keeper, p *policies.Policy) *runner {
	return &runner{k: k, policy: p, state: &policies.State{}}
}

// current returns the policy the next run runs.
func (r *runner) current() *policies.Policy {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.policy
}

// setPolicy makes p the policy the next run runs and reports whether its
// schedule changed (the scheduler entry must then be replaced).
func (r *runner) setPolicy(p *policies.Policy) (rescheduled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.policy
	r.policy = p
	r.warnedUnit.Store(false) // a reloaded policy may be fixed, or broken anew
	return old.Schedule != p.Schedule || old.JitterDelay() != p.JitterDelay()
}

// tick is the scheduler's run of the policy: it runs (waiting for a
// policy_concurrency slot once it has observed), and keeps the run's
// status for /status.
func (r *runner) tick(ctx context.Context, run runInfo) error {
	sum, err := r.run(ctx, run)
	st := statusOf(run, sum, err)
	r.mu.Lock()
	r.last = &st
	r.mu.Unlock()
	return err
}

// run is one run of the policy: observe, evaluate, act on the planned
// actions along the action path (up to action_concurrency at once, see
// executeAll), and report. It observes before it takes
// a policy_concurrency slot, so that the policies that fire together all
// join one walk of the loans (loanWalks), however few run at once.
func (r *runner) run(ctx context.Context, run runInfo) (runSummary, error) {
	k, p := r.k, r.current()
	var sum runSummary
	log := k.logger.With("policy", p.Name, "run", run.ID)
	scope, ok := k.triggers.take(p.Name, run.Triggered)
	if !ok {
		log.Debug("Triggered run not needed: a run since covered its changes")
		return sum, nil
	}
	if run.Triggered {
		log.Info("Running on trigger", "scope", scope.String())
	}
	if k.lead.leading() {
		k.triggers.journal(ctx, p.Name, k.journal)
		if p.Authority.Squads != nil {
			k.exec.TrackProposals(ctx) // before reading: an execution changes the target
		}
	}
	dry := p.DryRun || k.dryRunAll
	if p.Kind == policies.KindAlert {
		r.state.Open = r.incidents.openTargets(ctx, k, p.Name, dry) // for the evaluation to say which cleared
	}
	readsFrom := k.now()
	obs, err := k.obs.observe(ctx, p, sieving{state: r.state, scope: scope, due: k.scheduler.next(p.Name)})
	if err != nil {
		log.Warn("Cannot observe; skipping this run", "err", err)
		return sum, err
	}
	release, ok := k.slots.acquire(ctx)
	defer release()
	if !ok {
		return sum, ctx.Err()
	}
	now := evaluationTime(obs, k.now())
	hist, resumable, err := historyAndResumable(ctx, k.journal, p, now)
	if err != nil {
		log.Error("Cannot read the journal; not acting", "err", err)
		return sum, err
	}
	res, err := policies.EvaluateScoped(p, obs, now, hist, r.state, scope)
	if err != nil {
		log.Error("Evaluation failed", "err", err)
		return sum, err
	}
	sum.Evaluated = res.Evaluated
	if !k.lead.leading() {
		// A standby observes and evaluates, so /status, metrics and the
		// `for` timers are current when it takes over, and acts on nothing.
		for range res.Actions {
			sum.add(action.OutcomeStandby)
		}
		log.Debug("Standing by: not acting", "planned", len(res.Actions))
		return sum, nil
	}
	k.exec.Supersede(ctx, resumable, plannedTargets(res))
	r.logSkips(log, res)
	var plans []action.Plan
	for _, a := range res.Actions {
		if a.Alert != nil {
			r.incidents.fire(ctx, k, a, dry)
			sum.add(action.OutcomeAlert)
			continue
		}
		plan := action.FromAction(a, k.dryRunAll)
		plan.ReadsFrom = readsFrom
		plans = append(plans, plan)
	}
	notDone := &ActionsError{}
	for i, res := range k.executeAll(ctx, log, run.ID, plans, k.cfg.ActionConcurrency) {
		plan := plans[i]
		sum.add(res.Outcome)
		notDone.add(plan, res.Outcome)
		if len(res.Signatures) > 0 {
			sum.Transactions = append(sum.Transactions, statusTx{Action: action.ShortID(plan.ID), Target: plan.Target,
				Outcome: string(res.Outcome), Signatures: res.Signatures, Links: res.Links})
		}
	}
	if p.Kind == policies.KindAlert {
		r.incidents.resolve(ctx, k, p, res.Cleared, dry)
	}
	log.Debug("Policy run done", "evaluated", res.Evaluated, "actions", len(res.Actions), "skipped", len(res.Skipped))
	return sum, notDone.err()
}

// plan evaluates the policy against live state as a run would now, and
// acts on nothing: the `for` state is evaluated on a copy.
func (r *runner) plan(ctx context.Context) PolicyPlan {
	k, p := r.k, r.current()
	pp := PolicyPlan{Policy: p.Name, Kind: string(p.Kind), DryRun: p.DryRun || k.dryRunAll}
	if p.Authority.Squads != nil {
		pp.Proposals = k.openProposals(p.Name)
	}
	var err error
	if pp.Triggers, err = planTriggers(ctx, k.journal, p); err != nil {
		k.logger.Warn("Cannot read the trigger firings", "policy", p.Name, "err", err)
	}
	r.mu.Lock()
	state := &policies.State{PendingSince: maps.Clone(r.state.PendingSince)}
	r.mu.Unlock()
	if state.PendingSince == nil {
		state.PendingSince = map[string]time.Time{}
	}
	obs, err := k.obs.observe(ctx, p, sieving{state: state})
	if err != nil {
		pp.Err = err.Error()
		return pp
	}
	now := evaluationTime(obs, k.now())
	hist, _, err := historyAndResumable(ctx, k.journal, p, now)
	if err != nil {
		pp.Err = err.Error()
		return pp
	}
	before := maps.Clone(state.PendingSince) // what a capture replays from
	res, err := policies.Evaluate(p, obs, now, hist, state)
	if err != nil {
		pp.Err = fmt.Sprintf("evaluating: %v", err)
		return pp
	}
	pp.Actions, pp.Skipped, pp.Result = res.Actions, res.Skipped, &res
	pp.policy, pp.obs, pp.hist, pp.pending = p, obs, hist, before
	return pp
}

// evaluationTime is when to evaluate obs: the sieve's time for loans read
// page by page (policies.Observation.SievedAt), else now.
func evaluationTime(obs *policies.Observation, now time.Time) time.Time {
	if t := obs.SievedAt(); !t.IsZero() {
		return t
	}
	return now
}

// pendingSince copies the `for` state's pending times.
func (r *runner) pendingSince() map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.state.PendingSince)
}

// status returns the policy and its last scheduled run, for /status.
func (r *runner) status() (*policies.Policy, *runStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		return r.policy, nil
	}
	last := *r.last
	return r.policy, &last
}

func (r *runner) logSkips(log *slog.Logger, res policies.Result) {
	for _, s := range res.Skipped {
		if s.Reason == policies.SkipStale {
			r.k.metrics.RunsSkipped.WithLabelValues(res.Policy, "stale_data").Inc()
			log.Warn("Data too old to act on", "detail", s.Detail)
			continue
		}
		if s.Reason == policies.SkipUnit && !r.warnedUnit.Swap(true) {
			log.Warn("Policy can never act on a target: an amount is in another token", "target", s.Target, "detail", s.Detail)
			continue
		}
		log.Debug("Target not acted on", "target", s.Target, "reason", s.Reason, "detail", s.Detail)
	}
}

// severityLevel is the log level of an alert's severity: critical alerts
// log at ERROR, warnings at WARN, the rest at INFO.
func severityLevel(s policies.Severity) slog.Level {
	switch s {
	case policies.SeverityCritical:
		return slog.LevelError
	case policies.SeverityWarning:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// runSummary is what one run of a policy did: how many targets it
// evaluated, and how many of its planned actions ended each way (alerts
// fired count as "alert").
type runSummary struct {
	Evaluated int
	Actions   map[action.Outcome]int
	// Transactions are the run's actions that signed something.
	Transactions []statusTx
}

func (s *runSummary) add(o action.Outcome) {
	if s.Actions == nil {
		s.Actions = map[action.Outcome]int{}
	}
	s.Actions[o]++
}

// alertIncidents are an alert policy's incidents as its runs know them.
// The journal keeps the incidents of real runs, so that neither a restart
// nor each pass of a cron deployment pages again for an incident that is
// still open. A dry run opens its incidents in memory only and pages them
// marked as a dry run (which the dispatcher posts only when asked): the
// journal keeps no incident a dry run opened, so the first real run opens
// and announces it; nor does a dry run resolve the journal's incidents.
type alertIncidents struct {
	mu sync.Mutex
	// open mirrors the journal's open incidents, by target (nil until the
	// first alert run reads them), plus those of dryOpen, so that a run
	// writes to the journal only when an incident opens or resolves.
	open map[string]bool
	// dryOpen are the incidents a dry run opened, in memory only, with
	// their ids ("dry-1", the nth of the process), which their alert and
	// resolution carry alike.
	dryOpen   map[string]string
	dryOpened int
}

// fire opens the incident of a's target, in the journal or (dry) in
// memory, or finds it open: only a new incident is logged at its
// severity's level and paged.
func (ai *alertIncidents) fire(ctx context.Context, k *Keeper, a policies.Action, dry bool) {
	k.metrics.Actions.WithLabelValues(a.Policy, string(a.Kind), string(action.OutcomeAlert)).Inc()
	ai.setDry(dry)
	if ai.knownOpen(ctx, k, a.Policy, a.Target) {
		k.logger.Debug("Alert", "policy", a.Policy, "target", a.Target, "severity", a.Alert.Severity, "message", a.Alert.Message)
		return // one line and one page per incident, not one per tick
	}
	m := notify.Message{Event: notify.Alert, Policy: a.Policy, Kind: string(a.Kind), Target: a.Target,
		Severity: string(a.Alert.Severity), Reason: a.Alert.Message, To: a.Notify.To, Time: k.now(), DryRun: dry}
	level := severityLevel(a.Alert.Severity)
	if dry {
		m.Incident = ai.markDry(a.Target)
		k.logger.Log(ctx, level, "Alert", "policy", a.Policy, "target", a.Target, "severity", a.Alert.Severity,
			"message", a.Alert.Message, "incident", m.Incident, "dry_run", true)
		k.notifier.Page(m)
		return
	}
	in, opened, err := k.journal.OpenIncident(context.WithoutCancel(ctx), journal.Incident{Policy: a.Policy, Target: a.Target,
		Severity: string(a.Alert.Severity), Message: a.Alert.Message})
	if err != nil {
		// The journal cannot tell whether the incident is new: page rather
		// than stay silent.
		k.logger.Error("Cannot journal the alert incident; paging anyway", "policy", a.Policy, "target", a.Target, "err", err)
		opened = true
	} else {
		ai.mark(a.Target)
	}
	if !opened {
		level = slog.LevelDebug
	}
	k.logger.Log(ctx, level, "Alert", "policy", a.Policy, "target", a.Target, "severity", a.Alert.Severity,
		"message", a.Alert.Message, "incident", in.ID, "since", in.OpenedAt)
	if opened {
		m.Incident = incidentID(in)
		k.notifier.Page(m)
	}
}

// mark records target's incident as open.
func (ai *alertIncidents) mark(target string) {
	ai.mu.Lock()
	defer ai.mu.Unlock()
	ai.open[target] = true
}

// markDry records target's incident as opened by a dry run, in memory
// only, and returns its id.
func (ai *alertIncidents) markDry(target string) string {
	ai.mu.Lock()
	defer ai.mu.Unlock()
	ai.open[target] = true
	ai.dryOpened++
	id := "dry-" + strconv.Itoa(ai.dryOpened)
	ai.dryOpen[target] = id
	return id
}

// setDry readies the set for a dry or a real run: a real run forgets the
// incidents a dry run opened in memory, so that it opens them in the
// journal and announces them.
func (ai *alertIncidents) setDry(dry bool) {
	ai.mu.Lock()
	defer ai.mu.Unlock()
	switch {
	case dry && ai.dryOpen == nil:
		ai.dryOpen = map[string]string{}
	case !dry:
		for target := range ai.dryOpen {
			delete(ai.open, target)
		}
		ai.dryOpen = nil
	}
}

// openTargets readies the set for a dry or a real run and returns the
// targets whose incident is open as the run sees them (a dry run: those
// of the journal and those it opened), for the evaluation to report which
// of them cleared (policies.State.Open).
func (ai *alertIncidents) openTargets(ctx context.Context, k *Keeper, policy string, dry bool) map[string]bool {
	ai.setDry(dry)
	ai.knownOpen(ctx, k, policy, "") // read the journal's open incidents once
	ai.mu.Lock()
	defer ai.mu.Unlock()
	return maps.Clone(ai.open)
}

// resolve resolves the incidents the evaluation found cleared (a dry run:
// only those it opened) and pages each resolution once, with what ended it.
func (ai *alertIncidents) resolve(ctx context.Context, k *Keeper, p *policies.Policy, cleared []policies.Cleared, dry bool) {
	ai.setDry(dry)
	if dry {
		ai.resolveDry(ctx, k, p, cleared)
		return
	}
	byTarget := map[string]policies.Cleared{}
	ai.mu.Lock()
	for _, c := range cleared {
		if ai.open[c.Target] {
			byTarget[c.Target] = c
		}
	}
	ai.mu.Unlock()
	if len(byTarget) == 0 {
		return // nothing open cleared: no journal write
	}
	resolved, err := k.journal.ResolveIncidents(context.WithoutCancel(ctx), p.Name, slices.Sorted(maps.Keys(byTarget)))
	if err != nil {
		k.logger.Error("Cannot journal resolved alert incidents; they stay open", "policy", p.Name, "err", err)
		return
	}
	ai.mu.Lock()
	for _, in := range resolved {
		delete(ai.open, in.Target)
	}
	ai.mu.Unlock()
	for _, in := range resolved {
		c := byTarget[in.Target]
		openFor := in.ResolvedAt.Sub(in.OpenedAt).Round(time.Second)
		k.logger.Info("Alert resolved", "policy", p.Name, "target", in.Target, "incident", in.ID, "now", resolvedValue(c),
			"open_for", openFor)
		k.notifier.Page(notify.Message{Event: notify.Resolved, Policy: p.Name, Kind: string(p.Kind), Target: in.Target,
			Severity: in.Severity, Reason: resolvedReason(p, c, openFor), Value: c.Value, To: p.Notify.To, Time: k.now(),
			Incident: incidentID(in)})
	}
}

// resolveDry resolves, in memory, the incidents a dry run opened that the
// evaluation found cleared, and pages each resolution as a dry run's.
func (ai *alertIncidents) resolveDry(ctx context.Context, k *Keeper, p *policies.Policy, cleared []policies.Cleared) {
	var done []policies.Cleared
	ids := map[string]string{}
	ai.mu.Lock()
	for _, c := range cleared {
		if id := ai.dryOpen[c.Target]; id != "" {
			delete(ai.dryOpen, c.Target)
			delete(ai.open, c.Target)
			done, ids[c.Target] = append(done, c), id
		}
	}
	ai.mu.Unlock()
	for _, c := range done {
		k.logger.Log(ctx, slog.LevelInfo, "Alert resolved", "policy", p.Name, "target", c.Target, "incident", ids[c.Target],
			"now", resolvedValue(c), "dry_run", true)
		k.notifier.Page(notify.Message{Event: notify.Resolved, Policy: p.Name, Kind: string(p.Kind), Target: c.Target,
			Reason: resolvedReason(p, c, 0), Value: c.Value, To: p.Notify.To, Time: k.now(), DryRun: true, Incident: ids[c.Target]})
	}
}

// knownOpen reports whether target has an open incident as the journal
// last said, reading the policy's open incidents on first use (after a
// start, so a restart does not page again). A failed read leaves the set
// empty: OpenIncident then asks the journal target by target.
func (ai *alertIncidents) knownOpen(ctx context.Context, k *Keeper, policy, target string) bool {
	ai.mu.Lock()
	loaded := ai.open != nil
	ai.mu.Unlock()
	if !loaded {
		open := map[string]bool{}
		ins, err := k.journal.Incidents(context.WithoutCancel(ctx), journal.IncidentFilter{Policy: policy, Open: true})
		if err != nil {
			k.logger.Warn("Cannot read the open alert incidents", "policy", policy, "err", err)
		}
		for _, in := range ins {
			open[in.Target] = true
		}
		ai.mu.Lock()
		if ai.open == nil {
			ai.open = open
		}
		ai.mu.Unlock()
	}
	ai.mu.Lock()
	defer ai.mu.Unlock()
	return ai.open[target]
}

// incidentID is the id notifications carry for in: "" when the journal
// could not say it.
func incidentID(in journal.Incident) string {
	if in.ID == 0 {
		return ""
	}
	return strconv.FormatInt(in.ID, 10)
}

// resolvedReason is a resolution's text: "resolved", the condition that
// stopped holding (or the target gone) and how long the incident was open
// (when known). What the facts are now is the message's Value.
func resolvedReason(p *policies.Policy, c policies.Cleared, openFor time.Duration) string {
	s := "resolved: the alert's condition no longer holds"
	switch {
	case c.Gone:
		s = "resolved: the target is no longer among the policy's targets"
	case p.When != "":
		s = fmt.Sprintf("resolved: %s no longer holds", strings.Join(strings.Fields(p.When), " "))
	}
	if openFor > 0 {
		s += fmt.Sprintf(" (open for %s)", openFor)
	}
	return s
}

// resolvedValue is what a resolution's log line says the target is now.
func resolvedValue(c policies.Cleared) string {
	if c.Gone {
		return "gone"
	}
	return c.Value
}
