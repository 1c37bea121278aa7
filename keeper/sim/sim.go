package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
)

// Sim is a simulated lending market, Solana RPC node and Jito block engine over one clock. It is safe
// for concurrent use.
//
// Lock order: the market's lock (world.mu) may be held while calling the chain; the programs the
// chain runs never take it (they read prices from an atomically swapped table), so no cycle exists.
type Sim struct {
	*world
	events   *Events       // the scenario's events on the clock
	accounts *Accounts     // typed reads of the market's accounts
	faultCtl *FaultControl // the faults of the three services
	api      *marketServer // the market's HTTP API
	servers  servers       // the servers Start began
}

// world is the market as every part of the simulator sees it: what the scenario made (the
// catalogue), the chain holding its accounts, the clock, the market faults and the market's lock. It
// has no methods: the parts that hold it act on it.
type world struct {
	w      *programs.Catalog
	chain  *chainsim.Chain
	accts  chainState
	clock  chainsim.Clock
	start  time.Time
	market scenario.MarketSpec // validated
	faults *faults.State
	amms   *amms      // the AMM pools behind the Jupiter API (amm.go), set once New deployed them
	mu     sync.Mutex // the market's lock
}

// Handlers are the HTTP handlers of the three services. Each runs the scenario events that are due
// before it serves a request.
type Handlers struct {
	// Market serves the market API; its routes live under /v1/.
	Market http.Handler
	// RPC serves Solana JSON-RPC.
	RPC http.Handler
	// Jito serves the Jito block engine (paths /api/v1/bundles and /api/v1/transactions).
	Jito http.Handler
}

// New builds the market, the chain and the block engine over one clock, loads the scenario and funds
// the wallet.
func New(opts Options) (*Sim, error) {
	opts, sc, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	start := opts.Clock.Now()
	comp, err := genesis.Compile(sc, opts.Wallet, start)
	if err != nil {
		return nil, err
	}
	jitoLimit := opts.JitoRateLimit
	if math.IsInf(jitoLimit, 1) {
		jitoLimit = 0 // chainsim's "no limit"
	}
	chain, err := chainsim.New(chainsim.Options{Clock: opts.Clock, Genesis: start, Seed: opts.Seed,
		MinTip: opts.MinTip, Faults: opts.Faults.Chain, Logger: opts.Logger, JitoRateLimit: jitoLimit,
		Rent: true}) // the runtime's rent rule, as every validator applies it
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	wd := &world{w: comp.World, chain: chain, accts: chainState{chain}, clock: opts.Clock, start: start,
		market: sc.Market, faults: faults.NewState(opts.Seed, opts.Faults.Market)}
	vs := &views{world: wd}
	s := &Sim{world: wd, events: &Events{world: wd, log: opts.Logger, list: comp.Events},
		accounts: &Accounts{world: wd, views: vs}}
	s.api = &marketServer{world: wd, log: opts.Logger, onRoute: opts.OnUnknownRoute, idem: apiwire.NewIdempotencyStore(),
		routes: marketRoutes(&endpoints{world: wd, views: vs, tx: &txBuilder{chain: chain, faults: wd.faults}})}
	s.faultCtl = &FaultControl{chain: chain, state: wd.faults, api: s.api}
	if step := sc.Market.DropUpdateStep; step > 0 {
		chain.DropOnce(carriesUpdateStep(uint8(step - 1)))
	}
	if err := deploy(chain, comp.World, comp.Genesis); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if s.amms, err = deployAMMs(chain, comp.World, sc.AMMs); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s.events.setUp()
	return s, nil
}

// withDefaults validates the options and fills in the defaults of the zero ones, returning the
// scenario to load.
func (opts Options) withDefaults() (Options, *scenario.Scenario, error) {
	if err := opts.Faults.Validate(); err != nil {
		return opts, nil, err
	}
	if opts.Clock == nil {
		opts.Clock = chainsim.RealClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Wallet.IsZero() {
		opts.Wallet = DefaultWallet()
	}
	if opts.JitoRateLimit == 0 {
		opts.JitoRateLimit = DefaultJitoRateLimit
	}
	if opts.Scenario != nil {
		return opts, opts.Scenario, nil
	}
	sc, err := DefaultScenario()
	if err != nil {
		return opts, nil, fmt.Errorf("sim: default scenario: %w", err)
	}
	return opts, sc, nil
}

// deploy registers the programs of catalogue w on chain and creates the genesis state.
func deploy(chain *chainsim.Chain, w *programs.Catalog, g genesis.Genesis) error {
	progs := map[solana.PublicKey]svm.Program{
		ids.MarketProgramID: svm.ProgramFunc(w.ExecuteMarket),
		ids.EarnProgramID:   svm.ProgramFunc(programs.ExecuteEarn),
		ids.DexAProgramID:   svm.ProgramFunc(programs.ExecuteDex),
		ids.DexBProgramID:   svm.ProgramFunc(programs.ExecuteDex),
	}
	for _, id := range []solana.PublicKey{ids.MarketProgramID, ids.EarnProgramID, ids.DexAProgramID, ids.DexBProgramID} {
		if err := chain.Setup.RegisterProgram(id, progs[id]); err != nil {
			return err
		}
	}
	if err := squadsim.Register(chain); err != nil {
		return err
	}
	var errs []error
	for _, m := range g.Mints {
		errs = append(errs, createMint(chain, m))
	}
	for _, gr := range g.Lamports {
		errs = append(errs, chain.Setup.Fund(gr.Wallet, gr.Amount))
	}
	for _, gr := range g.Tokens {
		errs = append(errs, chain.Setup.MintTo(gr.Wallet, gr.Mint, gr.Amount))
	}
	for _, a := range g.Accounts {
		chain.State.SetAccount(a.Key, a.Account)
	}
	for _, ms := range g.Multisigs {
		if key, err := squadsim.Create(chain, ms); err != nil {
			errs = append(errs, fmt.Errorf("multisig %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

// Chain returns the simulated chain, for balances, accounts and chain faults.
func (s *Sim) Chain() *chainsim.Chain { return s.chain }

// Wallet returns the operator's wallet ("$wallet" in the scenario).
func (s *Sim) Wallet() solana.PublicKey { return s.w.Wallet }

// StartTime returns the time the simulator started: offsets in the scenario count from it.
func (s *Sim) StartTime() time.Time { return s.start }

// Now returns the sim clock's time.
func (s *Sim) Now() time.Time { return s.clock.Now() }

// Events returns the scenario's events, to run the due ones or step a manual clock.
func (s *Sim) Events() *Events { return s.events }

// Accounts returns the reader of the market's accounts as the market API shows them.
func (s *Sim) Accounts() *Accounts { return s.accounts }

// Faults returns the fault control of the three services.
func (s *Sim) Faults() *FaultControl { return s.faultCtl }

// Handlers returns the handlers of the market, the RPC node and the Jito block engine.
func (s *Sim) Handlers() Handlers {
	return Handlers{Market: s.events.catchUp(s.withJupiter(s.api.handler())), RPC: s.events.catchUp(s.chain.RPC().Handler()),
		Jito: s.events.catchUp(s.chain.Jito().Handler())}
}

// Start serves the market, the RPC and the Jito engine on their addresses until ctx ends, and returns
// their URLs once all three listen. Wait reports how serving ended.
func (s *Sim) Start(ctx context.Context, a Addrs) (URLs, error) {
	return s.startWith(ctx, a, s.Handlers())
}

// StartControlled is Start with c's control routes served on the market's address under
// ControlPrefix, and the RPC and Jito requests counted for AdvanceRequest.AfterTraffic. c must be a
// Control of s.
func (s *Sim) StartControlled(ctx context.Context, a Addrs, c *Control) (URLs, error) {
	if c == nil || c.sim != s {
		return URLs{}, errors.New("sim: start controlled: the control belongs to another simulator")
	}
	h := s.Handlers()
	return s.startWith(ctx, a, Handlers{Market: withControl(c.CountMarket(h.Market), c.Handler()),
		RPC: c.CountTraffic(chainsim.ServiceRPC, h.RPC), Jito: c.CountTraffic(chainsim.ServiceJito, h.Jito)})
}

// startWith serves h on a's addresses until ctx ends and runs the scenario events on a clock that
// moves by itself.
func (s *Sim) startWith(ctx context.Context, a Addrs, h Handlers) (URLs, error) {
	lns, err := listenAll(ctx, []string{a.Market, a.RPC, a.Jito})
	if err != nil {
		return URLs{}, err
	}
	for i, hh := range []http.Handler{h.Market, h.RPC, h.Jito} {
		s.servers.serve(ctx, lns[i], hh)
	}
	s.events.runOnTheClock(ctx)
	base := func(ln net.Listener) string { return "http://" + ln.Addr().String() }
	return URLs{Market: base(lns[0]) + "/v1", RPC: base(lns[1]), Jito: base(lns[2])}, nil
}

// Wait blocks until every server Start began has stopped (after its context ended) and returns
// their serving errors, if any.
func (s *Sim) Wait() error { return s.servers.wait() }
