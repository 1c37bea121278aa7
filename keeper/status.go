package keeper

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// readinessTimeout bounds each readiness probe.
const readinessTimeout = 3 * time.Second

// readiness lists what /readyz checks: the journal takes writes, keeper is not
// paused, and the RPC node answers (which also refreshes the wallet balance
// metric).
func (k *Keeper) readiness() []readinessCheck {
	return []readinessCheck{
		{"journal", func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
			defer cancel()
			return k.journal.Writable(ctx)
		}},
		{"paused", func(context.Context) error {
			if reason, paused := k.exec.Paused(); paused {
				return errors.New(reason)
			}
			return nil
		}},
		{"rpc", func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
			defer cancel()
			lamports, err := k.submitter.Balance(ctx, k.wallet)
			if err != nil {
				return fmt.Errorf("wallet balance: %w", err)
			}
			k.metrics.WalletLamports.Set(float64(lamports))
			return nil
		}},
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
		Policies []policyStatus `json:"policies"`
	}{Wallet: k.wallet.String(), Version: k.version, DryRun: k.dryRunAll, Paused: paused, Reason: reason}
	if k.set == nil {
		return out
	}
	k.set.mu.RLock()
	defer k.set.mu.RUnlock()
	for name, p := range k.set.byName {
		ps := policyStatus{Name: name, Kind: string(p.Kind), Schedule: p.Schedule, DryRun: p.DryRun || k.dryRunAll,
			NextRun: k.scheduler.next(name)}
		if last, ok := k.set.last[name]; ok {
			ps.LastRun = &last
		}
		out.Policies = append(out.Policies, ps)
	}
	sort.Slice(out.Policies, func(i, j int) bool { return out.Policies[i].Name < out.Policies[j].Name })
	return out
}
