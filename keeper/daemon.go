package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/keeper-project/keeper/policies"
)

// shutdownTimeout bounds, by default (Options.ShutdownTimeout), how long
// Run waits for runs in progress to reach a safe point after it is told to
// stop. What is left is journaled and settled by recovery on the next start.
const shutdownTimeout = 30 * time.Second

// RunOnce settles unfinished actions, then runs every enabled policy once,
// one after the other, and returns when their actions have settled. The
// error wraps ErrActionsFailed when any action failed or was refused.
func (k *Keeper) RunOnce(ctx context.Context) error {
	if k.lead != nil {
		resign, err := k.lead.once(ctx)
		if err != nil {
			return err
		}
		defer resign()
	}
	if err := k.Recover(ctx); err != nil {
		return err
	}
	ps, err := k.policies.loadChecked(ctx)
	if err != nil {
		return err
	}
	defer prefetchTips(ctx, k.submitter, k.logger, sendsBundles(ps, k.dryRunAll))()
	errs := k.runPass(ctx, ps)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
	defer cancel()
	k.notifier.Drain(dctx)
	return errors.Join(errs...)
}

// sendsBundles reports whether a policy of ps lands bundles and may send:
// enabled, and in dry run neither itself nor by dryRunAll.
func sendsBundles(ps []*policies.Policy, dryRunAll bool) bool {
	return !dryRunAll && slices.ContainsFunc(ps, func(p *policies.Policy) bool { return landsBundles(p) && !p.DryRun })
}

// prefetchTips, when need is true, asks sub for the block engine's tip
// accounts in the background, so that the first bundle's tip does not wait
// a round trip for them between its signatures and its send (the chain
// client keeps them, and refreshes them when they are an hour old; for a
// mainnet engine it starts from the published accounts and asks nothing
// here: see chain.PublishedTipAccounts). It returns a function that
// stops the request and waits for it. A failure is logged; the first bundle
// asks again.
func prefetchTips(ctx context.Context, sub Submitter, log *slog.Logger, need bool) (stop func()) {
	if !need {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := sub.TipAccounts(ctx); err != nil && ctx.Err() == nil {
			log.Warn("Could not fetch the block engine's tip accounts ahead of the first bundle; it will ask again", "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// drainTimeout bounds how long RunOnce spends delivering notifications.
const drainTimeout = 30 * time.Second

// Run is the daemon: it settles unfinished actions, schedules every enabled
// policy, serves the operations endpoints, reloads on a value from reload,
// and on ctx's end stops scheduling, lets runs in progress reach a safe
// point (bounded), and returns nil.
func (k *Keeper) Run(ctx context.Context, reload <-chan struct{}) error {
	if k.lead == nil {
		if err := k.Recover(ctx); err != nil {
			return err
		}
		k.metrics.Leader.Set(1)
	}
	ps, err := k.policies.loadChecked(ctx)
	if err != nil {
		return err
	}
	defer prefetchTips(ctx, k.submitter, k.logger, sendsBundles(ps, k.dryRunAll))()
	runCtx, stopRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRuns()
	k.scheduler = newScheduler(runCtx, k.logger, k.metrics)
	k.triggers = daemonTriggers(k.env, k.submitter, k.scheduler)
	k.runners.apply(k, ps)
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWatch()
	go k.triggers.watcher.Run(watchCtx)
	srv, addr, err := k.serveOps()
	if err != nil {
		return err
	}
	notifyCtx, stopNotify := context.WithCancel(context.WithoutCancel(ctx))
	go k.notifier.Run(notifyCtx)
	leadCtx, stopLead := context.WithCancel(context.WithoutCancel(ctx))
	leadDone := k.lead.start(leadCtx)
	sweepCtx, stopSweep := context.WithCancel(runCtx)
	sweepDone := make(chan struct{})
	go func() {
		defer close(sweepDone)
		k.sweeper.run(sweepCtx)
	}()
	k.scheduler.start()
	sd := systemd{logger: k.logger}
	sd.ready()
	k.logger.Info("keeper started", "wallet", k.wallet.String(), "policies", len(ps), "dry_run", k.dryRunAll, "http", addr,
		"journal", k.cfg.Journal.DSN)
	k.upkeep.loop(ctx, reload, k.Reload, sd, k.scheduler)
	sd.stopping()
	k.scheduler.shutdown(k.shutdownTimeout, stopRuns)
	stopSweep()
	<-sweepDone
	stopLead() // resigns after the runs stopped, so a standby takes over at once
	<-leadDone
	stopWatch()
	stopServer(srv)
	stopNotify()
	return nil
}

// reloadTimeout bounds the chain reads of a reload's amount check.
const reloadTimeout = 30 * time.Second

// gaugeInterval is how often the journal and wallet gauges are refreshed.
const gaugeInterval = 30 * time.Second

// Reload re-reads the policy files. Unchanged policies keep running with
// their state; changed ones are rescheduled with their state; removed ones
// stop. On any error the running set stays as it is.
func (k *Keeper) Reload() {
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	ps, err := k.policies.loadChecked(ctx)
	if err != nil {
		k.metrics.Reloads.WithLabelValues("error").Inc()
		k.logger.Error("Reload failed; keeping the running policies", "err", err)
		return
	}
	k.runners.apply(k, ps)
	k.metrics.Reloads.WithLabelValues("ok").Inc()
	k.logger.Info("Reloaded policies", "policies", len(ps))
}

// stopServer stops the operations endpoint, if it runs.
func stopServer(srv *http.Server) {
	if srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// serveOps starts the operations endpoint when the config names an address,
// and returns the address it listens on (the port chosen when the config
// says 0).
func (k *Keeper) serveOps() (*http.Server, string, error) {
	if k.cfg.HTTP.Listen == "" {
		return nil, "", nil
	}
	ln, err := net.Listen("tcp", k.cfg.HTTP.Listen)
	if err != nil {
		return nil, "", fmt.Errorf("keeper: http.listen: %w", err)
	}
	srv := &http.Server{Handler: opsHandler(k.registry, readiness(k.upkeep, k.triggers, k.cfg.Chain.WatchPoll), k.status), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			k.logger.Error("Operations endpoint stopped", "err", err)
		}
	}()
	return srv, ln.Addr().String(), nil
}
