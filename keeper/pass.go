package keeper

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/policies/capture"
)

// ActionsError reports the actions of a pass that did not end well: failed
// (or not taken), refused, or still unsettled (sent and not yet settled, or
// left for a later run to try again). errors.Is(err, ErrActionsFailed)
// holds for it.
type ActionsError struct {
	Failed, Refused, Unsettled []string
}

// Error says which actions, by policy, target and action ID.
func (e *ActionsError) Error() string {
	var parts []string
	for _, g := range []struct {
		what string
		list []string
	}{{"failed", e.Failed}, {"refused", e.Refused}, {"unsettled", e.Unsettled}} {
		if len(g.list) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s: %s", len(g.list), g.what, strings.Join(g.list, ", ")))
		}
	}
	return "actions not done: " + strings.Join(parts, "; ")
}

// Is makes an ActionsError match ErrActionsFailed.
func (e *ActionsError) Is(target error) bool { return target == ErrActionsFailed }

// Plan reads live state and evaluates every enabled policy against it, with
// the journal's history, as a run would now. It signs, builds and journals
// nothing, and leaves the policies' `for` state untouched. The policies are
// planned at once, so that they share the walks of the loans as the
// policies of one tick do.
func (k *Keeper) Plan(ctx context.Context) ([]PolicyPlan, error) {
	ps, err := k.policies.load()
	if err != nil {
		return nil, err
	}
	ps = slices.DeleteFunc(slices.Clone(ps), func(p *policies.Policy) bool { return !p.Enabled })
	out := make([]PolicyPlan, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		r := newRunner(k, p)
		if running := k.runners.find(p.Name); running != nil {
			r.state.PendingSince = running.pendingSince()
		}
		wg.Go(func() {
			out[i] = r.plan(ctx)
			k.quoteSales(ctx, &out[i])
		})
	}
	wg.Wait()
	return out, nil
}

// PolicyPlan is what one policy would do now: its planned actions and the
// targets it would leave alone, with why. Err is set when the policy could
// not be evaluated (its data could not be read, for example).
type PolicyPlan struct {
	Policy  string            `json:"policy"`
	Kind    string            `json:"kind"`
	DryRun  bool              `json:"dry_run"`
	Actions []policies.Action `json:"actions"`
	Skipped []policies.Skip   `json:"skipped"`
	Err     string            `json:"error,omitempty"`
	Result  *policies.Result  `json:"-"`
	// Triggers are the policy's triggers with what the daemon's firings
	// of them did, as the journal holds it.
	Triggers []PlanTrigger `json:"triggers,omitempty"`
	// Proposals are the policy's open Squads proposals: a plan for their
	// targets waits for them to settle.
	Proposals []ProposalStatus `json:"proposals,omitempty"`
	// SaleQuotes are the aggregator's quotes, read at plan time, of the
	// repays from collateral it plans, by action ID (plan_quote.go).
	SaleQuotes map[string]SaleQuote `json:"sale_quotes,omitempty"`

	// What the evaluation read, for Capture.
	policy  *policies.Policy
	obs     *policies.Observation
	hist    policies.History
	pending map[string]time.Time
}

// Capture writes pp as a `keeper test` file in dir (where the test file
// goes, so that it names the policy's file relative to it): the state the
// plan read and what the policy decided, as expectations.
func (pp PolicyPlan) Capture(w io.Writer, dir string) error {
	if pp.obs == nil || pp.Result == nil {
		return fmt.Errorf("policy %s was not evaluated: nothing to capture", pp.Policy)
	}
	file := pp.policy.File
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
		if d, err := filepath.Abs(dir); err == nil {
			if rel, err := filepath.Rel(d, abs); err == nil {
				file = rel
			}
		}
	}
	return capture.Situation{PolicyFile: file, Policy: pp.Policy, Now: pp.Result.Now, Obs: pp.obs, History: pp.hist,
		PendingSince: pp.pending, Result: *pp.Result}.Write(w)
}

// add files plan p's outcome o; outcomes that ended well are not kept.
func (e *ActionsError) add(p action.Plan, o action.Outcome) {
	name := fmt.Sprintf("%s %s (%s, %s)", p.Policy, p.Target, action.ShortID(p.ID), o)
	switch o {
	case action.OutcomeFailed, action.OutcomeNotTaken:
		e.Failed = append(e.Failed, name)
	case action.OutcomeRefused:
		e.Refused = append(e.Refused, name)
	case action.OutcomePending, action.OutcomeRetry, action.OutcomeExpired:
		e.Unsettled = append(e.Unsettled, name)
	}
}

// err returns e, or nil when every action ended well.
func (e *ActionsError) err() error {
	if len(e.Failed)+len(e.Refused)+len(e.Unsettled) == 0 {
		return nil
	}
	return e
}

// runPass runs every enabled policy of ps once, at most policy_concurrency
// at a time once they have observed (runner.run), and returns each one's
// error in ps's order.
func (k *Keeper) runPass(ctx context.Context, ps []*policies.Policy) []error {
	if k.scheduler == nil {
		k.scheduler = newScheduler(context.Background(), k.logger, k.metrics) // unstarted: runs on demand
	}
	sched := k.scheduler
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		if !p.Enabled {
			continue
		}
		wg.Go(func() {
			tick := k.now().UTC()
			r, _, _ := k.runners.use(k, p)
			err := sched.runOnce(runInfo{Policy: p.Name, Tick: tick}, 15*time.Minute, func(ctx context.Context, run runInfo) error {
				_, err := r.run(ctx, run)
				return err
			})
			if err != nil {
				errs[i] = fmt.Errorf("policy %s: %w", p.Name, err)
			}
		})
	}
	wg.Wait()
	return errs
}

// PlanTrigger is one trigger of a policy and its firings so far (none:
// Fired 0).
type PlanTrigger struct {
	Trigger   string    `json:"trigger"`
	Fired     int       `json:"fired"`
	LastFired time.Time `json:"last_fired,omitzero"`
	LastSlot  uint64    `json:"last_slot,omitempty"`
	Detail    string    `json:"detail,omitempty"`
}

// planTriggers lists p's triggers with their journaled firings; a journal
// that cannot be read shows them never fired, and err says why.
func planTriggers(ctx context.Context, j Journal, p *policies.Policy) ([]PlanTrigger, error) {
	names := p.Triggers.Describe()
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]PlanTrigger, len(names))
	for i, n := range names {
		out[i].Trigger = n
	}
	fs, err := j.TriggerFirings(ctx, p.Name)
	for _, f := range fs {
		if i := slices.Index(names, f.Trigger); i >= 0 {
			out[i] = PlanTrigger{Trigger: f.Trigger, Fired: f.Fired, LastFired: f.LastFired, LastSlot: f.LastSlot, Detail: f.Detail}
		}
	}
	return out, err
}
