package keeper

import (
	"context"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/policies"
)

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
}

// Plan reads live state and evaluates every enabled policy against it, with
// the journal's history, as a run would now. It signs, builds and journals
// nothing, and leaves the policies' `for` state untouched.
func (k *Keeper) Plan(ctx context.Context) ([]PolicyPlan, error) {
	ps, err := k.loadPolicies()
	if err != nil {
		return nil, err
	}
	var out []PolicyPlan
	for _, p := range ps {
		if !p.Enabled {
			continue
		}
		out = append(out, k.planPolicy(ctx, p))
	}
	return out, nil
}

func (k *Keeper) planPolicy(ctx context.Context, p *policies.Policy) PolicyPlan {
	pp := PolicyPlan{Policy: p.Name, Kind: string(p.Kind), DryRun: p.DryRun || k.dryRunAll}
	obs, err := k.obs.observe(ctx, p)
	if err != nil {
		pp.Err = err.Error()
		return pp
	}
	now := k.now()
	hist, err := k.history(ctx, p, now)
	if err != nil {
		pp.Err = err.Error()
		return pp
	}
	state := &policies.State{PendingSince: map[string]time.Time{}}
	for t, since := range k.policyState(p.Name).PendingSince {
		state.PendingSince[t] = since
	}
	res, err := policies.Evaluate(p, obs, now, hist, state)
	if err != nil {
		pp.Err = fmt.Sprintf("evaluating: %v", err)
		return pp
	}
	pp.Actions, pp.Skipped, pp.Result = res.Actions, res.Skipped, &res
	return pp
}
