package keeper

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
)

// pruneInterval is how often the daemon prunes the journal.
const pruneInterval = time.Hour

// upkeep looks after the journal and the gauges around it: it takes the
// journal's ownership, prunes it, and keeps the pending, lag and wallet
// gauges current.
type upkeep struct {
	journal   Journal
	submitter Submitter
	wallet    solana.PublicKey
	metrics   *Metrics
	logger    *slog.Logger
	now       func() time.Time
	retention time.Duration
	paused    func() (string, bool) // refreshes the paused gauge
	leading   func() bool           // whether this keeper may write (see leadership); nil: always
}

// leads reports whether this keeper may write to the journal now.
func (u *upkeep) leads() bool { return u.leading == nil || u.leading() }

// own makes this process the journal's only owner before anything is recovered or acted on, so
// that two daemons never act on one journal.
func (u *upkeep) own() error {
	if err := u.journal.Own(); err != nil {
		return fmt.Errorf("keeper: %w", err)
	}
	return nil
}

// prune deletes the final actions that settled longer ago than journal.retention; unsettled and
// expired actions are never pruned. A failure is logged and tried again at the next interval.
func (u *upkeep) prune(ctx context.Context) {
	if u.retention <= 0 || !u.leads() {
		return
	}
	cutoff := u.now().Add(-u.retention)
	n, err := u.journal.Prune(ctx, cutoff)
	switch {
	case err != nil:
		u.logger.Warn("Cannot prune the journal", "err", err)
	case n > 0:
		u.logger.Info("Pruned the journal", "actions", n, "settled_before", cutoff.UTC().Format(time.RFC3339))
	}
}

// refresh sets the journal's pending count and lag, the wallet's SOL
// balance and the paused gauge.
func (u *upkeep) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
	defer cancel()
	if pending, err := u.journal.Pending(ctx); err == nil {
		u.setJournalGauges(pending)
	}
	if lamports, err := u.submitter.Balance(ctx, u.wallet); err == nil {
		u.metrics.WalletLamports.Set(float64(lamports))
	}
	u.paused()
}

// setJournalGauges counts the unsettled actions and the age of the oldest
// one with an attempt in flight (an expired action waits for its policy to
// plan it again, or to supersede it, and is not lag).
func (u *upkeep) setJournalGauges(pending []journal.Action) {
	u.metrics.JournalPending.Set(float64(len(pending)))
	lag := 0.0
	for _, a := range pending { // oldest first
		if a.State != journal.StateExpired {
			lag = u.now().Sub(a.CreatedAt).Seconds()
			break
		}
	}
	u.metrics.JournalLag.Set(lag)
}

// loop waits for the end or for reload requests (then calls onReload),
// refreshing the gauges, pruning the journal and pinging systemd's watchdog
// while sched fires on time.
func (u *upkeep) loop(ctx context.Context, reload <-chan struct{}, onReload func(), sd systemd, sched *scheduler) {
	t := time.NewTicker(gaugeInterval)
	defer t.Stop()
	pt := time.NewTicker(pruneInterval)
	defer pt.Stop()
	var watchdog <-chan time.Time
	if every := sd.watchdogEvery(); every > 0 {
		wt := time.NewTicker(every)
		defer wt.Stop()
		watchdog = wt.C
		sd.ping(sched, u.now())
	}
	u.refresh(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-reload:
			onReload()
		case <-t.C:
			u.refresh(ctx)
		case <-pt.C:
			u.prune(ctx)
		case <-watchdog:
			sd.ping(sched, u.now())
		}
	}
}
