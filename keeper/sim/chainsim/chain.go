package chainsim

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// Chain is a simulated Solana cluster. It is safe for concurrent use.
type Chain struct {
	clock   Clock
	genesis time.Time
	seed    uint64
	minTip  uint64
	noBals  bool // Options.SimulateWithoutBalances
	log     *slog.Logger
	faults  *faultState
	tips    []solana.PublicKey
	rpc     *Server // set once by New
	jito    *Server // set once by New

	mu           sync.Mutex
	accounts     svm.AccountMap                   // guarded by mu
	programs     map[solana.PublicKey]svm.Program // guarded by mu
	stalls       []stallWindow                    // guarded by mu; sorted, disjoint
	seen         uint64                           // guarded by mu; the last clock slot synced
	tip          svm.BlockPos                     // guarded by mu; the newest block
	registeredTo uint64                           // guarded by mu; highest height in blocks
	blocks       map[solana.Hash]uint64           // guarded by mu; recent blockhash → height
	blockOrder   []blockRef                       // guarded by mu; blocks in height order
	txs          map[solana.Signature]*record     // guarded by mu; every landed transaction
	queue        []*pendingItem                   // guarded by mu; work waiting for a block
	bundles      map[string]*bundleRecord         // guarded by mu
	fees         []feeRecord                      // guarded by mu; recent priority fees
	drops        []func(*solana.Message) bool     // guarded by mu; see DropOnce
	dropped      map[solana.Signature]bool        // guarded by mu; transactions DropOnce drops
	writes       uint64                           // guarded by mu; see StateVersion
	pubsub       *hub                             // its tables guarded by mu
	updates      []scheduledUpdate                // guarded by mu; see ScheduleUpdate, sorted by slot

	hookMu      sync.Mutex
	hooks       []func(Landed) // guarded by hookMu
	events      []Landed       // guarded by hookMu; landed, hooks not yet run
	dispatching bool           // guarded by hookMu
}

// New returns a chain at its genesis with the built-in programs deployed.
func New(opts Options) (*Chain, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Chain{
		clock:    o.Clock,
		genesis:  o.Genesis,
		seed:     o.Seed,
		minTip:   o.MinTip,
		noBals:   o.SimulateWithoutBalances,
		log:      o.Logger,
		faults:   newFaultState(o.Seed, o.Faults),
		tips:     tipAccounts(),
		accounts: svm.AccountMap{},
		programs: map[solana.PublicKey]svm.Program{},
		blocks:   map[solana.Hash]uint64{},
		txs:      map[solana.Signature]*record{},
		bundles:  map[string]*bundleRecord{},
		pubsub:   newHub(),
	}
	for id, b := range svm.Builtins {
		c.accounts[id] = &svm.Account{Lamports: 1, Owner: b.Loader, Executable: true}
	}
	c.accounts[solana.WrappedSol] = svm.NativeMintAccount()
	c.tip = c.posOfSlot(0)
	c.registerBlock(0)
	c.rpc = newServer(c, ServiceRPC)
	c.jito = newServer(c, ServiceJito)
	return c, nil
}

// lock takes the chain's lock and brings the chain up to the clock.
func (c *Chain) lock() {
	c.mu.Lock()
	c.syncLocked()
}

// unlock observes what changed for the pubsub subscribers, releases the
// lock, then runs the landing hooks of what landed.
func (c *Chain) unlock() {
	c.observeLocked(c.seen)
	c.mu.Unlock()
	c.dispatchHooks()
}

// RegisterProgram deploys a program at id. The id must not be a built-in
// program or already registered.
func (c *Chain) RegisterProgram(id solana.PublicKey, p svm.Program) error {
	if p == nil {
		return fmt.Errorf("chainsim: register program %s: nil program", id)
	}
	c.lock()
	defer c.unlock()
	if _, ok := svm.Builtins[id]; ok {
		return fmt.Errorf("chainsim: register program %s: a built-in program has that id", id)
	}
	if _, ok := c.programs[id]; ok {
		return fmt.Errorf("chainsim: register program %s: already registered", id)
	}
	if a, ok := c.accounts[id]; ok && !a.IsEmpty() {
		return fmt.Errorf("chainsim: register program %s: an account exists at that address", id)
	}
	c.programs[id] = p
	c.accounts[id] = &svm.Account{Lamports: 1, Owner: solana.BPFLoaderUpgradeableProgramID, Executable: true}
	c.writes++
	return nil
}

// OnLanded registers f to be called for every transaction that lands, in
// landing order, after the chain's lock is released and never concurrently
// with another hook. f may read the chain and send transactions; it may run
// on the goroutine of whichever call landed the transaction.
func (c *Chain) OnLanded(f func(Landed)) {
	c.hookMu.Lock()
	defer c.hookMu.Unlock()
	c.hooks = append(c.hooks, f)
}

// emit queues a landed transaction for the hooks. The caller holds c.mu.
func (c *Chain) emit(l Landed) {
	c.hookMu.Lock()
	defer c.hookMu.Unlock()
	if len(c.hooks) > 0 {
		c.events = append(c.events, l)
	}
}

// dispatchHooks runs queued hooks unless another goroutine already is.
func (c *Chain) dispatchHooks() {
	c.hookMu.Lock()
	if c.dispatching {
		c.hookMu.Unlock()
		return
	}
	c.dispatching = true
	for len(c.events) > 0 {
		ev, hooks := c.events[0], c.hooks
		c.events = c.events[1:]
		c.hookMu.Unlock()
		for _, h := range hooks {
			h(ev)
		}
		c.hookMu.Lock()
	}
	c.dispatching = false
	c.hookMu.Unlock()
}

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
	return nil
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
