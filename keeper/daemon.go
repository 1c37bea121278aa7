package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market/api"
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
	defer k.tips.save(ctx) // after the prefetch below has ended
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
// client keeps them, and refreshes them when they are an hour old; when
// the journal kept an answer under an hour old, it has them already and
// asks nothing: see keepTipAccounts). It returns a function that
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

// warmActionPath readies the decoding of the answers an action waits on
// (chain.Warm, api.Warm) in the background, once a process. A run that may
// act calls it as it starts (see mayAct): otherwise the process's first
// action, and so every `run --once`'s, builds those decoders on its path.
// The run's observation, a network read, goes on meanwhile. An idle
// daemon, which has run nothing, has not warmed.
func warmActionPath() {
	warmOnce.Do(func() {
		go func() {
			chain.Warm()
			api.Warm()
		}()
	})
}

// warmOnce makes warmActionPath start its work once a process.
var warmOnce sync.Once

// journalWarm readies the journal for the first action (journal.Warm: its
// write-ahead log started, an action's path rehearsed and rolled back) once
// a Keeper, beside the observation of its first run that may act. A
// process that has just opened the journal would otherwise start the log
// (about three flushes instead of one) and parse its statements, through
// SQLite code not yet paged in, on its first action's path: the intent's
// and the signatures' durable commits, in every `run --once`.
type journalWarm struct{ once sync.Once }

// journalWarmer is the part of the journal that readies it for an action;
// *journal.Journal implements it.
type journalWarmer interface {
	Warm(ctx context.Context) error
}

// begin warms j in the background the first time it is called and returns
// a function that waits until the warm-up has ended (a failure is logged;
// the action's own writes then report the journal's state). Later calls,
// and a journal without a warm-up, return a function that returns at once.
func (s *journalWarm) begin(ctx context.Context, j Journal, log *slog.Logger) (wait func()) {
	wait = func() {}
	jw, ok := j.(journalWarmer)
	if !ok {
		return wait
	}
	s.once.Do(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := jw.Warm(ctx); err != nil && ctx.Err() == nil {
				log.Warn("Cannot ready the journal ahead of the first action", "err", err)
			}
		}()
		wait = func() { <-done }
	})
	return wait
}

// mayAct reports whether a run of p may sign and send, and so warms the
// action path: p is not an alert and not in dry run, dry run is not forced
// on every policy, and this process leads.
func mayAct(p *policies.Policy, dryRunAll, leading bool) bool {
	return p.Kind != policies.KindAlert && !p.DryRun && !dryRunAll && leading
}

// keptTips carries the block engine's tip accounts between processes
// through the journal: a process starts from the answer an earlier
// one-pass run kept (see keepTipAccounts), and a one-pass run keeps the
// answer it got as it ends (save), so that the next need not ask the
// engine and wait out its rate limit before its first bundle. A daemon
// keeps its answer in memory only: it asks as it starts, long before a
// schedule's first bundle, and the journal's write would cost the idle
// daemon ≈ 1 MB of resident memory (docs/benchmarks.md). Safe for
// concurrent use; a nil *keptTips carries nothing.
type keptTips struct {
	store  engineTipStore
	engine string // the engine's URL without its secrets
	log    *slog.Logger

	mu     sync.Mutex
	answer *journal.EngineTipAccounts // guarded by mu; the engine's last answer, not kept yet
}

// note records an answer of the engine (chain.Options.OnTipAccounts).
func (t *keptTips) note(accs []solana.PublicKey, at time.Time) {
	a := &journal.EngineTipAccounts{AskedAt: at}
	for _, k := range accs {
		a.Accounts = append(a.Accounts, k.String())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answer = a
}

// save keeps the engine's last answer to this process in the journal, if
// there was one since the last save. A failure is logged: the next
// process asks the engine.
func (t *keptTips) save(ctx context.Context) {
	if t == nil {
		return
	}
	t.mu.Lock()
	a := t.answer
	t.answer = nil
	t.mu.Unlock()
	if a == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tipStoreTimeout)
	defer cancel()
	if err := t.store.SaveEngineTipAccounts(ctx, t.engine, *a); err != nil {
		t.log.Warn("Cannot keep the block engine's tip accounts in the journal; the next run will ask the engine", "err", err)
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
	k.scheduler.start()
	sd := systemd{logger: k.logger}
	sd.ready()
	k.logger.Info("keeper started", "wallet", k.wallet.String(), "policies", len(ps), "dry_run", k.dryRunAll, "http", addr,
		"journal", k.cfg.Journal.DSN)
	k.upkeep.loop(ctx, reload, k.Reload, sd, k.scheduler)
	sd.stopping()
	k.scheduler.shutdown(k.shutdownTimeout, stopRuns)
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
