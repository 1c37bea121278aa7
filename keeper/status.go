package keeper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/watch"
)

// readinessTimeout bounds each readiness probe.
const readinessTimeout = 3 * time.Second

// readiness lists what /readyz checks: the journal takes writes, keeper is not
// paused, and the RPC node answers (which also refreshes the wallet balance
// metric).
func (u *upkeep) readiness() []readinessCheck {
	return []readinessCheck{
		{"journal", func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
			defer cancel()
			if !u.leads() {
				// A standby writes nothing; it is ready while it reads.
				_, err := u.journal.Pending(ctx)
				return err
			}
			return u.journal.Writable(ctx)
		}},
		{"paused", func(context.Context) error {
			if reason, paused := u.paused(); paused {
				return errors.New(reason)
			}
			return nil
		}},
		{"rpc", func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
			defer cancel()
			lamports, err := u.submitter.Balance(ctx, u.wallet)
			if err != nil {
				return fmt.Errorf("wallet balance: %w", err)
			}
			u.metrics.WalletLamports.Set(float64(lamports))
			return nil
		}},
	}
}

// readiness lists what /readyz checks: upkeep's checks, and the chain
// watcher's subscriptions while policies have triggers (t not nil).
func readiness(u *upkeep, t *triggers, poll time.Duration) func() []readinessCheck {
	return func() []readinessCheck {
		checks := u.readiness()
		if t != nil {
			checks = append(checks, readinessCheck{"watch", func(context.Context) error {
				if m, reason := t.watcher.Mode(); m == watch.ModePolling {
					return fmt.Errorf("the triggers' websocket subscriptions do not serve; polling every %s: %s", poll, reason)
				}
				return nil
			}})
		}
		return checks
	}
}

// policyStatus is one policy in /status.
type policyStatus struct {
	Name     string     `json:"name"`
	Kind     string     `json:"kind"`
	Schedule string     `json:"schedule"`
	DryRun   bool       `json:"dry_run"`
	NextRun  time.Time  `json:"next_run"`
	LastRun  *runStatus `json:"last_run,omitempty"`
	// Triggers are the policy's triggers with their last firing.
	Triggers []triggerStatus `json:"triggers,omitempty"`
}

// status is the /status document.
func (k *Keeper) status() any {
	reason, paused := k.exec.Paused()
	out := struct {
		Wallet   string         `json:"wallet"`
		Version  string         `json:"version"`
		DryRun   bool           `json:"dry_run"`
		Paused   bool           `json:"paused"`
		Reason   string         `json:"paused_reason,omitempty"`
		Role     string         `json:"role"`
		Term     int64          `json:"term,omitempty"`
		Policies []policyStatus `json:"policies"`
		// Proposals are keeper's open Squads proposals (see openProposals).
		Proposals []ProposalStatus `json:"proposals,omitempty"`
	}{Wallet: k.wallet.String(), Version: k.version, DryRun: k.dryRunAll, Paused: paused, Reason: reason,
		Proposals: k.openProposals("")}
	out.Role, out.Term = k.lead.role()
	for _, name := range k.runners.names() {
		r := k.runners.find(name)
		if r == nil {
			continue
		}
		p, last := r.status()
		ps := policyStatus{Name: name, Kind: string(p.Kind), Schedule: p.Schedule, DryRun: p.DryRun || k.dryRunAll, LastRun: last,
			Triggers: k.triggers.statuses(p)}
		if k.scheduler != nil {
			ps.NextRun = k.scheduler.next(name)
		}
		out.Policies = append(out.Policies, ps)
	}
	return out
}

// runStatus is a policy's last run, for /status.
type runStatus struct {
	At    time.Time `json:"at"`
	RunID string    `json:"run_id"`
	// Outcome is ok, actions_not_done (some action failed, was refused or
	// is unsettled: see below) or error (the run could not observe,
	// evaluate or read the journal).
	Outcome string `json:"outcome"`
	// Evaluated counts the targets the run evaluated; Actions, per outcome
	// (landed, busy, dry_run, alert, ...), the actions it planned.
	Evaluated int            `json:"evaluated"`
	Actions   map[string]int `json:"actions,omitempty"`
	Error     string         `json:"error,omitempty"`
	// Failed, Refused and Unsettled name the run's actions that did not
	// end well.
	Failed    []string `json:"failed,omitempty"`
	Refused   []string `json:"refused,omitempty"`
	Unsettled []string `json:"unsettled,omitempty"`
	// Transactions are the run's actions that signed something: their
	// signatures and explorer links.
	Transactions []statusTx `json:"transactions,omitempty"`
}

// statusTx is one action of a run that signed transactions.
type statusTx struct {
	Action     string   `json:"action"`
	Target     string   `json:"target"`
	Outcome    string   `json:"outcome"`
	Signatures []string `json:"signatures"`
	Links      []string `json:"links,omitempty"`
}

// statusOf is the status of a run that did sum and returned err.
func statusOf(run runInfo, sum runSummary, err error) runStatus {
	st := runStatus{At: run.Tick, RunID: run.ID, Outcome: "ok", Evaluated: sum.Evaluated, Transactions: sum.Transactions}
	for o, n := range sum.Actions {
		if st.Actions == nil {
			st.Actions = map[string]int{}
		}
		st.Actions[string(o)] = n
	}
	if err != nil {
		st.Outcome, st.Error = "error", err.Error()
	}
	if ae, ok := errors.AsType[*ActionsError](err); ok {
		st.Outcome = "actions_not_done"
		st.Failed, st.Refused, st.Unsettled = ae.Failed, ae.Refused, ae.Unsettled
	}
	return st
}
