package keeper

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/notify"
)

// Options configure a Keeper. Config is required; every other field has a
// default, and the dependencies left nil are built from Config.
type Options struct {
	Config *config.Config
	// Logger receives the daemon's log; default: discard.
	Logger *slog.Logger
	// Registry receives keeper's metrics and serves /metrics; default: a
	// new registry.
	Registry *prometheus.Registry
	// Version is keeper's version, for the User-Agent and logs.
	Version string
	// DryRun forces dry run for every policy, whatever the config says.
	DryRun bool
	// NotifyDryRun posts the notifications of dry runs (marked "dry run");
	// without it a dry run posts nothing.
	NotifyDryRun bool
	// ShutdownTimeout bounds how long Run lets runs in progress reach a
	// safe point once told to stop; default 30 s.
	ShutdownTimeout time.Duration
	// ReadOnly is for the commands that only read (plan, wallet): the
	// wallet is signer.pubkey when set, and no key is loaded; nothing can
	// be signed.
	ReadOnly bool
	// Now is the clock; default time.Now.
	Now func() time.Time

	Market    Market
	Signer    Signer
	Submitter Submitter
	Journal   Journal
	// Swapper is the DEX aggregator of repays from collateral; default: a
	// Jupiter client of the config's swap section (none without a base URL).
	Swapper action.Swapper
}

// env is what every part of keeper is built with.
type env struct {
	cfg     *config.Config
	logger  *slog.Logger
	metrics *Metrics
	now     func() time.Time
}

// Keeper is the daemon: it owns the dependencies, the schedule and the
// action path. Create it with New, start it with Run or RunOnce, and Close it.
type Keeper struct {
	env
	deps
	registry  *prometheus.Registry
	version   string
	dryRunAll bool
	// shutdownTimeout is Options.ShutdownTimeout, defaulted.
	shutdownTimeout time.Duration
	wallet          solana.PublicKey
	notifier        *notify.Dispatcher
	closers         []func() error

	obs  *observer
	exec *action.Executor

	policies  policySource
	upkeep    *upkeep
	sweeper   *sweeper
	runners   *runnerSet
	scheduler *scheduler // set by Run (or RunOnce)
	triggers  *triggers  // set by Run: the daemon alone reacts to the chain
	slots     slots
	lead      *leadership // nil unless the journal is shared
}

// New builds a Keeper from o, creating the market client, signer, chain
// client and journal that o does not supply.
func New(o Options) (*Keeper, error) {
	if o.Config == nil {
		return nil, errors.New("keeper: Options.Config is required")
	}
	k := &Keeper{env: env{cfg: o.Config, logger: o.Logger, now: o.Now}, registry: o.Registry, version: o.Version,
		dryRunAll: o.DryRun || o.Config.DryRun, shutdownTimeout: cmp.Or(o.ShutdownTimeout, shutdownTimeout),
		deps: deps{market: o.Market, signer: o.Signer, submitter: o.Submitter, journal: o.Journal, swapper: o.Swapper}}
	if k.logger == nil {
		k.logger = slog.New(slog.DiscardHandler)
	}
	if k.version == "" {
		k.version = "devel"
	}
	if k.registry == nil {
		k.registry = prometheus.NewRegistry()
		registerProcess(k.registry, k.version)
	}
	if k.now == nil {
		k.now = time.Now
	}
	k.metrics = NewMetrics(k.registry)
	var err error
	if k.closers, err = k.deps.wire(k.env, k.version, o.ReadOnly); err != nil {
		k.Close()
		return nil, err
	}
	k.wallet = k.signer.PublicKey()
	k.notifier = newDispatcher(k.env, o.NotifyDryRun)
	if k.obs, err = newObserver(k.env, k.deps, k.wallet); err != nil {
		k.Close()
		return nil, err
	}
	k.sweeper = newSweeper(k.journal, k.logger)
	k.exec = newExecutor(k.env, k.deps, k.notifier, k.obs, k.sweeper.poke, k.verifyLanded)
	k.sweeper.sweep = k.exec.Sweep
	k.upkeep = &upkeep{journal: k.journal, submitter: k.submitter, wallet: k.wallet, metrics: k.metrics,
		logger: k.logger, now: k.now, retention: k.cfg.Journal.Retention, paused: k.exec.Paused}
	k.policies = policySource{cfg: k.cfg, tokens: k.obs.tokenBook}
	k.runners = newRunnerSet()
	k.lead = newLeadership(k.env, k.journal, func(ctx context.Context) error { return settleJournal(ctx, k) })
	k.upkeep.leading = k.lead.leading
	k.sweeper.leading = k.lead.leading
	k.slots = newSlots(k.cfg.PolicyConcurrency)
	return k, nil
}

// Close releases what New opened (the journal, the chain client). It is
// safe to call more than once.
func (k *Keeper) Close() error {
	var errs []error
	for i := len(k.closers) - 1; i >= 0; i-- {
		if err := k.closers[i](); err != nil {
			errs = append(errs, err)
		}
	}
	k.closers = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("keeper: closing: %w", err)
	}
	return nil
}
