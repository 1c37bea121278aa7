package chainsim

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
	"golang.org/x/time/rate"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// Chain is a simulated Solana cluster. It is safe for concurrent use.
//
// Its services share the chain's one lock: a call of any of them first
// brings the chain up to its clock, so each sees the same consistent state.
type Chain struct {
	// Ledger is the chain's blocks, slots and landed transactions.
	Ledger *Ledger
	// State is the chain's accounts.
	State *State
	// Setup creates the accounts and programs a scenario starts with.
	Setup *Setup
	// Bundles is the Jito block engine.
	Bundles *BlockEngine
	// Market is the fee market: block limits, competing load, Jito leaders
	// and the tip auction.
	Market *Market
	// Pubsub is the RPC service's websocket subscriptions.
	Pubsub *Pubsub

	log    *slog.Logger
	noBals bool // Options.SimulateWithoutBalances
	faults *faultState
	rpc    *Server // set once by New
	jito   *Server // set once by New
	hooks  hooks

	mu     sync.Mutex
	rt     *runtime // guarded by mu
	leader *leader  // guarded by mu
	drops  drops    // guarded by mu; see DropOnce
}

// New returns a chain at its genesis with the built-in programs deployed.
func New(opts Options) (*Chain, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Chain{log: o.Logger, noBals: o.SimulateWithoutBalances, faults: newFaultState(o.Seed, o.Faults)}
	c.Ledger = newLedger(c, o.Clock, o.Genesis, o.Seed)
	c.State = newState(c)
	c.State.past.keep = maxLag(o.Faults.RPC)
	c.Setup = &Setup{c: c}
	c.Bundles = newBlockEngine(c, o.MinTip)
	if o.Rent {
		c.State.fundTipAccounts(c.Bundles.tips)
	}
	c.Market = newMarket(c, o)
	c.Pubsub = newPubsub(c)
	c.rt = &runtime{ledger: c.Ledger, programs: map[solana.PublicKey]svm.Program{}, rent: o.Rent}
	c.leader = &leader{c: c}
	c.rpc = newServer(c, ServiceRPC)
	c.jito = newServer(c, ServiceJito)
	if o.JitoRateLimit > 0 {
		c.jito.limits = &clientLimits{rate: rate.Limit(o.JitoRateLimit), buckets: map[string]*rate.Limiter{}}
	}
	return c, nil
}

// lock takes the chain's lock and brings the chain up to the clock.
func (c *Chain) lock() {
	c.mu.Lock()
	c.leader.sync()
}

// unlock observes what changed for the pubsub subscribers, releases the
// lock, then runs the landing hooks of what landed.
func (c *Chain) unlock() {
	c.Pubsub.observe(c.Ledger.seen)
	c.mu.Unlock()
	c.hooks.dispatch()
}

// read returns f's result computed under the chain's lock, once the chain
// is up to its clock.
func read[T any](c *Chain, f func() T) T {
	c.lock()
	defer c.unlock()
	return f()
}

// OnLanded registers f to be called for every transaction that lands, in
// landing order, after the chain's lock is released and never concurrently
// with another hook. f may read the chain and send transactions; it may run
// on the goroutine of whichever call landed the transaction.
func (c *Chain) OnLanded(f func(Landed)) { c.hooks.add(f) }

// RPC returns the Solana JSON-RPC server of the chain.
func (c *Chain) RPC() *Server { return c.rpc }

// Jito returns the Jito block engine server of the chain.
func (c *Chain) Jito() *Server { return c.jito }

// SetFaults replaces the fault configuration, restarting its scripts and
// random streams.
func (c *Chain) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return fmt.Errorf("chainsim: %w", err)
	}
	c.faults.set(f)
	c.lock()
	defer c.unlock()
	c.State.past.keep = maxLag(f.RPC)
	return nil
}

// maxLag returns the most slots any method of s lags.
func maxLag(s inject.ServiceFaults) uint64 {
	lag := s.All.LagSlots
	for _, m := range s.Methods {
		lag = max(lag, m.LagSlots)
	}
	return lag
}

// InjectFaults appends faults to the script of one method of svc (method ""
// means the next calls of any method). Each call consumes one entry.
func (c *Chain) InjectFaults(svc Service, method string, faults ...inject.Fault) error {
	known := rpcMethodNames
	if svc == ServiceJito {
		known = jitoMethodNames
	} else if svc != ServiceRPC {
		return fmt.Errorf("chainsim: inject faults: unknown service %q", svc)
	}
	if method != "" && !slices.Contains(known, method) {
		return fmt.Errorf("chainsim: inject faults: %s has no method %q", svc, method)
	}
	for i, f := range faults {
		if f < 0 || f >= inject.FaultCount {
			return fmt.Errorf("chainsim: inject faults: entry %d: unknown fault %d", i, int(f))
		}
	}
	c.faults.engine(svc).Script(method, faults...)
	return nil
}
