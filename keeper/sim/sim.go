package sim

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// Sim is a simulated lending market, Solana RPC node and Jito block engine over one clock. It is safe
// for concurrent use.
//
// Lock order: Sim.mu may be held while calling the chain; the programs the chain runs never take
// Sim.mu (they read prices from an atomically swapped table), so no cycle exists.
type Sim struct {
	log      *slog.Logger
	clock    chainsim.Clock
	start    time.Time
	chain    *chainsim.Chain
	w        *world
	faults   *marketFaultState
	onRoute  func(method, path string)
	routes   map[string]route
	idem     *idempotencyStore
	requests atomic.Uint64 // x-request-id counter

	mu     sync.Mutex  // the market's lock
	events []scheduled // fixed after New
	market MarketSpec  // fixed after New; validated
	next   int         // guarded by mu; index of the next event to run

	loans loanCache // loan views of the current state, for loans-info

	serveMu sync.Mutex
	servers []*server // guarded by serveMu
}

// New builds the market, the chain and the block engine over one clock, loads the scenario and funds
// the wallet.
func New(opts Options) (*Sim, error) {
	if err := opts.Faults.Validate(); err != nil {
		return nil, err
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
	sc := opts.Scenario
	if sc == nil {
		var err error
		if sc, err = DefaultScenario(); err != nil {
			return nil, fmt.Errorf("sim: default scenario: %w", err)
		}
	}
	start := opts.Clock.Now()
	comp, err := compileScenario(sc, opts.Wallet, start)
	if err != nil {
		return nil, err
	}
	chain, err := chainsim.New(chainsim.Options{Clock: opts.Clock, Genesis: start, Seed: opts.Seed,
		MinTip: opts.MinTip, Faults: opts.Faults.Chain, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Sim{log: opts.Logger, clock: opts.Clock, start: start, chain: chain, w: comp.world,
		events: comp.events, faults: newMarketFaultState(opts.Seed, opts.Faults.Market),
		onRoute: opts.OnUnknownRoute, idem: newIdempotencyStore(), market: sc.Market}
	s.routes = s.buildRoutes()
	if step := sc.Market.DropUpdateStep; step > 0 {
		chain.DropOnce(carriesUpdateStep(uint8(step - 1)))
	}
	if err := s.deploy(comp.genesis); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s.publishPrices(s.clock.Now())
	for _, ev := range s.events {
		if ev.Setup != nil {
			ev.Setup(s)
		}
	}
	return s, nil
}

// deploy registers the programs and creates the genesis state.
func (s *Sim) deploy(g genesis) error {
	programs := map[solana.PublicKey]chainsim.Program{
		MarketProgramID: chainsim.ProgramFunc(s.executeMarket),
		EarnProgramID:   chainsim.ProgramFunc(executeEarn),
		DexAProgramID:   chainsim.ProgramFunc(executeDex),
		DexBProgramID:   chainsim.ProgramFunc(executeDex),
	}
	for _, id := range []solana.PublicKey{MarketProgramID, EarnProgramID, DexAProgramID, DexBProgramID} {
		if err := s.chain.RegisterProgram(id, programs[id]); err != nil {
			return err
		}
	}
	var errs []error
	for _, m := range g.mints {
		errs = append(errs, s.createMint(m))
	}
	for _, gr := range g.lamports {
		errs = append(errs, s.chain.Fund(gr.Wallet, gr.Amount))
	}
	for _, gr := range g.tokens {
		errs = append(errs, s.chain.MintTo(gr.Wallet, gr.Mint, gr.Amount))
	}
	for _, a := range g.accounts {
		s.chain.SetAccount(a.Key, a.Account)
	}
	return errors.Join(errs...)
}

// Chain returns the simulated chain, for balances, accounts and chain faults.
func (s *Sim) Chain() *chainsim.Chain { return s.chain }

// Wallet returns the operator's wallet ("$wallet" in the scenario).
func (s *Sim) Wallet() solana.PublicKey { return s.w.wallet }

// StartTime returns the time the simulator started: offsets in the scenario count from it.
func (s *Sim) StartTime() time.Time { return s.start }

// Now returns the sim clock's time.
func (s *Sim) Now() time.Time { return s.clock.Now() }

// SetFaults replaces the fault configuration of all three services, restarting scripts and random
// streams.
func (s *Sim) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if err := s.chain.SetFaults(f.Chain); err != nil {
		return err
	}
	s.faults.set(f.Market)
	return nil
}

// InjectMarketFaults appends faults to the script of one market endpoint (endpoint "" means the next
// calls of any endpoint). Only the market faults of MarketFaults are accepted.
func (s *Sim) InjectMarketFaults(endpoint string, faults ...chainsim.Fault) error {
	if err := validateMethodFaults(chainsim.MethodFaults{Script: faults}); err != nil {
		return fmt.Errorf("sim: inject market faults: %w", err)
	}
	if _, ok := s.routeByEndpoint(endpoint); endpoint != "" && !ok {
		return fmt.Errorf("sim: inject market faults: unknown endpoint %q", endpoint)
	}
	s.faults.engine.Script(endpoint, faults...)
	return nil
}

// InjectHostile makes the next transaction-building calls hostile, one mode per call, in order.
func (s *Sim) InjectHostile(modes ...Hostile) error {
	if err := (MarketFaults{Hostile: modes}).Validate(); err != nil {
		return err
	}
	s.faults.injectHostile(modes)
	return nil
}

// Advance moves a manual clock forward by d and runs the scenario events that became due. It fails
// for any other clock.
func (s *Sim) Advance(d time.Duration) error {
	mc, ok := s.clock.(*chainsim.ManualClock)
	if !ok {
		return errors.New("sim: advance: the clock is not a *chainsim.ManualClock")
	}
	mc.Advance(d)
	_, err := s.RunDue()
	return err
}

// RunDue runs every scenario event whose time has come, in order, and returns how many ran. Every
// market, RPC and Jito request runs it first, and a started simulator on a real clock runs it every
// slot (runEventsOnTheClock), so events apply whether or not anyone asks.
func (s *Sim) RunDue() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	ran := 0
	var errs []error
	for s.next < len(s.events) && !s.start.Add(s.events[s.next].At).After(now) {
		ev := s.events[s.next]
		s.next++
		ran++
		if err := ev.Apply(s); err != nil {
			errs = append(errs, fmt.Errorf("sim: event at %s (%s): %w", ev.At, ev.Desc, err))
			continue
		}
		s.log.Info("Scenario event", "at", ev.At, "event", ev.Desc)
		s.publishPrices(s.start.Add(ev.At)) // a price the event moved is pushed when it moved
	}
	s.publishPrices(now)
	return ran, errors.Join(errs...)
}

// PendingEvents returns how many scenario events have not run yet.
func (s *Sim) PendingEvents() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events) - s.next
}

// catchUp wraps a handler so that due events run before each request.
func (s *Sim) catchUp(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.RunDue(); err != nil {
			s.log.Warn("Scenario event failed", "err", err)
		}
		h.ServeHTTP(w, r)
	})
}

// RPCHandler returns the Solana JSON-RPC handler.
func (s *Sim) RPCHandler() http.Handler { return s.catchUp(s.chain.RPC().Handler()) }

// JitoHandler returns the Jito block engine handler (paths /api/v1/bundles and /api/v1/transactions).
func (s *Sim) JitoHandler() http.Handler { return s.catchUp(s.chain.Jito().Handler()) }
