package chainsim

import (
	"fmt"
	"log/slog"
	"time"
)

// SlotDuration is the length of one slot.
const SlotDuration = 400 * time.Millisecond

// DefaultMinTip is the smallest Jito tip, in lamports, a bundle must pay when
// Options.MinTip is zero.
const DefaultMinTip = 1000

// Options configure a Chain. The zero value is usable: a real-time clock,
// genesis at New, seed 0, the default minimum tip and no faults.
type Options struct {
	// Clock is the source of time; nil means RealClock.
	Clock Clock
	// Genesis is the start of slot 0; the zero time means Clock.Now() at New.
	Genesis time.Time
	// Seed makes blockhashes and fault draws differ between chains.
	Seed uint64
	// MinTip is the smallest total transfer to Jito tip accounts a bundle
	// must make; zero means DefaultMinTip.
	MinTip uint64
	// Faults are the faults injected from the start (see Chain.SetFaults).
	Faults Faults
	// Logger receives debug lines about dropped transactions and bundles;
	// nil discards them.
	Logger *slog.Logger
	// SimulateWithoutBalances answers simulateTransaction as validators did
	// before Agave added the fee, the balances and the loaded addresses to
	// its result: those members are absent. For testing clients on older
	// nodes.
	SimulateWithoutBalances bool
	// Rent applies the runtime's rent rule, as every validator does: a
	// transaction fails with InsufficientFundsForRent when it leaves a
	// writable account (or its fee leaves the fee payer) with lamports above
	// zero but below the rent-exempt minimum, unless the account already
	// was so and neither grew nor gained lamports; the block engine's tip
	// accounts then exist from genesis with the rent-exempt balance, as
	// Jito's do. The simulator (keeper/sim) turns it on; it is off by
	// default for this package's own tests, whose chains hold accounts
	// funded with a few thousand lamports.
	Rent bool
	// JitoRateLimit is the block engine's limit on the requests one client
	// IP address may make per second (a token bucket holding one); a
	// request over it is answered 429 with Retry-After 1, as Jito's engine
	// answers (its documented default: 1 request per second per IP per
	// region). Requests are timed by the wall clock (a synctest bubble's in
	// tests), not by Clock: the engine counts them as they come, whatever
	// a test does with the chain's time. Zero means no limit.
	JitoRateLimit float64
	// BlockLimits are the compute budget of a block; zero fields take
	// DefaultMaxBlockUnits and DefaultMaxWritableAccountUnits. They bind
	// only while a load of the fee market is on (see Market).
	BlockLimits BlockLimits
	// NonJitoShare is the share of leaders that do not run the Jito client,
	// whose slots take no bundle (see Market.JitoLeader); zero means every
	// leader runs it.
	NonJitoShare float64
}

// withDefaults returns o with nil and zero fields filled in, or an error
// naming the first invalid field.
func (o Options) withDefaults() (Options, error) {
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	if o.Genesis.IsZero() {
		o.Genesis = o.Clock.Now()
	}
	if o.MinTip == 0 {
		o.MinTip = DefaultMinTip
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if !(o.JitoRateLimit >= 0) { // NaN too
		return o, fmt.Errorf("chainsim: options: JitoRateLimit %g, want 0 (none) or a positive rate", o.JitoRateLimit)
	}
	if !(o.NonJitoShare >= 0 && o.NonJitoShare <= 1) {
		return o, fmt.Errorf("chainsim: options: NonJitoShare %g, want a fraction in [0, 1]", o.NonJitoShare)
	}
	o.BlockLimits = o.BlockLimits.WithDefaults()
	if err := o.BlockLimits.Validate(); err != nil {
		return o, fmt.Errorf("chainsim: options: %w", err)
	}
	if err := o.Faults.Validate(); err != nil {
		return o, fmt.Errorf("chainsim: options: %w", err)
	}
	return o, nil
}
