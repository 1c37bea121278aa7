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
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
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
	w        *programs.Catalog
	faults   *faults.State
	onRoute  func(method, path string)
	routes   map[string]route
	idem     *apiwire.IdempotencyStore
	requests atomic.Uint64 // x-request-id counter

	mu     sync.Mutex          // the market's lock
	events []genesis.Event     // fixed after New
	market scenario.MarketSpec // fixed after New; validated
	next   int                 // guarded by mu; index of the next event to run

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
	comp, err := genesis.Compile(sc, opts.Wallet, start)
	if err != nil {
		return nil, err
	}
	chain, err := chainsim.New(chainsim.Options{Clock: opts.Clock, Genesis: start, Seed: opts.Seed,
		MinTip: opts.MinTip, Faults: opts.Faults.Chain, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Sim{log: opts.Logger, clock: opts.Clock, start: start, chain: chain, w: comp.World,
		events: comp.Events, faults: faults.NewState(opts.Seed, opts.Faults.Market),
		onRoute: opts.OnUnknownRoute, idem: apiwire.NewIdempotencyStore(), market: sc.Market}
	s.routes = s.buildRoutes()
	if step := sc.Market.DropUpdateStep; step > 0 {
		chain.DropOnce(carriesUpdateStep(uint8(step - 1)))
	}
	if err := s.deploy(comp.Genesis); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s.publishPrices(s.clock.Now())
	for _, ev := range s.events {
		if ev.Setup != nil {
			ev.Setup(eventSim{s})
		}
	}
	return s, nil
}

// deploy registers the programs and creates the genesis state.
func (s *Sim) deploy(g genesis.Genesis) error {
	programs := map[solana.PublicKey]svm.Program{
		ids.MarketProgramID: svm.ProgramFunc(s.w.ExecuteMarket),
		ids.EarnProgramID:   svm.ProgramFunc(programs.ExecuteEarn),
		ids.DexAProgramID:   svm.ProgramFunc(programs.ExecuteDex),
		ids.DexBProgramID:   svm.ProgramFunc(programs.ExecuteDex),
	}
	for _, id := range []solana.PublicKey{ids.MarketProgramID, ids.EarnProgramID, ids.DexAProgramID, ids.DexBProgramID} {
		if err := s.chain.Setup.RegisterProgram(id, programs[id]); err != nil {
			return err
		}
	}
	var errs []error
	for _, m := range g.Mints {
		errs = append(errs, s.createMint(m))
	}
	for _, gr := range g.Lamports {
		errs = append(errs, s.chain.Setup.Fund(gr.Wallet, gr.Amount))
	}
	for _, gr := range g.Tokens {
		errs = append(errs, s.chain.Setup.MintTo(gr.Wallet, gr.Mint, gr.Amount))
	}
	for _, a := range g.Accounts {
		s.chain.State.SetAccount(a.Key, a.Account)
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

// SetFaults replaces the fault configuration of all three services, restarting scripts and random
// streams.
func (s *Sim) SetFaults(f faults.Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if err := s.chain.SetFaults(f.Chain); err != nil {
		return err
	}
	s.faults.Set(f.Market)
	return nil
}

// InjectMarketFaults appends faults to the script of one market endpoint (endpoint "" means the next
// calls of any endpoint). Only the market faults of faults.Market are accepted.
func (s *Sim) InjectMarketFaults(endpoint string, kinds ...inject.Fault) error {
	if err := faults.ValidateMethodFaults(inject.MethodFaults{Script: kinds}); err != nil {
		return fmt.Errorf("sim: inject market faults: %w", err)
	}
	if _, ok := s.routeByEndpoint(endpoint); endpoint != "" && !ok {
		return fmt.Errorf("sim: inject market faults: unknown endpoint %q", endpoint)
	}
	s.faults.Engine.Script(endpoint, kinds...)
	return nil
}

// InjectHostile makes the next transaction-building calls hostile, one mode per call, in order.
func (s *Sim) InjectHostile(modes ...faults.Hostile) error {
	if err := (faults.Market{Hostile: modes}).Validate(); err != nil {
		return err
	}
	s.faults.InjectHostile(modes)
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
		if err := ev.Apply(eventSim{s}); err != nil {
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
