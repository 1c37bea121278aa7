package keeper

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/policies"
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
	// Now is the clock; default time.Now.
	Now func() time.Time

	Market    Market
	Signer    Signer
	Submitter Submitter
	Journal   Journal
}

// Keeper is the daemon: it owns the dependencies, the schedule and the
// action path. Create it with New, start it with Run or RunOnce, and Close it.
type Keeper struct {
	cfg       *config.Config
	logger    *slog.Logger
	registry  *prometheus.Registry
	metrics   *Metrics
	version   string
	dryRunAll bool
	now       func() time.Time

	market    Market
	signer    Signer
	submitter Submitter
	journal   Journal
	wallet    solana.PublicKey
	notifier  *notify.Dispatcher
	closers   []func() error

	obs  *observer
	exec *action.Executor

	runners   *runnerSet
	scheduler *scheduler // set by Run (or RunOnce)
	slots     slots
}

// New builds a Keeper from o, creating the market client, signer, chain
// client and journal that o does not supply.
func New(o Options) (*Keeper, error) {
	if o.Config == nil {
		return nil, errors.New("keeper: Options.Config is required")
	}
	k := &Keeper{cfg: o.Config, logger: o.Logger, registry: o.Registry, version: o.Version,
		dryRunAll: o.DryRun || o.Config.DryRun, now: o.Now,
		market: o.Market, signer: o.Signer, submitter: o.Submitter, journal: o.Journal}
	if k.logger == nil {
		k.logger = slog.New(slog.DiscardHandler)
	}
	if k.registry == nil {
		k.registry = prometheus.NewRegistry()
	}
	if k.now == nil {
		k.now = time.Now
	}
	if k.version == "" {
		k.version = "devel"
	}
	k.metrics = NewMetrics(k.registry)
	var err error
	if err = k.wire(); err != nil {
		k.Close()
		return nil, err
	}
	k.wallet = k.signer.PublicKey()
	k.notifier = k.newDispatcher()
	if k.obs, err = k.newObserver(); err != nil {
		k.Close()
		return nil, err
	}
	k.exec = k.newExecutor()
	k.runners = newRunnerSet()
	k.slots = newSlots(k.cfg.PolicyConcurrency)
	return k, nil
}

// newObserver builds the observer over keeper's market and chain client.
func (k *Keeper) newObserver() (*observer, error) {
	dexes, err := newDexes(k.cfg)
	if err != nil {
		return nil, err
	}
	book, err := newPriceBook(k.cfg.Prices, k.submitter)
	if err != nil {
		return nil, err
	}
	o := &observer{market: k.market, wallet: k.wallet, now: k.now, logger: k.logger,
		reads: newReadCache(readTTL, k.now), dexes: dexes, positions: clmm.NewReader(k.submitter),
		tokenBook: newTokenBook(k.submitter),
		prices:    &pricer{book: book, unknown: k.metrics.PricesUnknown, logger: k.logger, now: k.now}}
	if len(k.cfg.Tokens) > 0 {
		o.configTokens = make(map[string]policies.Token, len(k.cfg.Tokens))
		for mint, t := range k.cfg.Tokens {
			o.configTokens[mint] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals}
		}
	}
	return o, nil
}

// readTTL is how long a read serves the policies of one tick. It is no
// longer than the shortest interval between two ticks of a schedule (1 s),
// so the policies of one tick share a read and the next tick reads afresh.
const readTTL = time.Second

// newDexes returns dex-a and dex-b with their program ids from config.
func newDexes(c *config.Config) ([]clmm.Dex, error) {
	var out []clmm.Dex
	for _, d := range []struct{ layout, program string }{{clmm.DexA, c.Chain.DexAProgram}, {clmm.DexB, c.Chain.DexBProgram}} {
		pk, err := solana.PublicKeyFromBase58(d.program)
		if err != nil {
			return nil, fmt.Errorf("keeper: %s program: %w", d.layout, err)
		}
		dex, err := clmm.NewDex(d.layout, pk)
		if err != nil {
			return nil, fmt.Errorf("keeper: %w", err)
		}
		out = append(out, dex)
	}
	return out, nil
}

// Wallet returns the public key keeper signs with.
func (k *Keeper) Wallet() solana.PublicKey { return k.wallet }

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
