package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// Events are the scenario's events on the simulator's clock: each runs once its time has come, in
// order, and the Pyth prices that fall due are pushed as they run. Every market, RPC and Jito request
// runs the due ones first, and a started simulator on a real clock runs them every slot, so events
// apply whether or not anyone asks.
type Events struct {
	*world
	log  *slog.Logger
	list []genesis.Event // fixed after New
	next int             // guarded by the market's lock; index of the next event to run
}

// setUp pushes the first prices and runs the events' setups.
func (e *Events) setUp() {
	e.publishPrices(e.clock.Now())
	for _, ev := range e.list {
		if ev.Setup != nil {
			ev.Setup(eventSim{e.world})
		}
	}
}

// Advance moves a manual clock forward by d and runs the scenario events that became due. It fails
// for any other clock.
func (e *Events) Advance(d time.Duration) error {
	mc, ok := e.clock.(*chainsim.ManualClock)
	if !ok {
		return errors.New("sim: advance: the clock is not a *chainsim.ManualClock")
	}
	mc.Advance(d)
	_, err := e.RunDue()
	return err
}

// RunDue runs every scenario event whose time has come, in order, and returns how many ran.
func (e *Events) RunDue() (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.clock.Now()
	ran := 0
	var errs []error
	for e.next < len(e.list) && !e.start.Add(e.list[e.next].At).After(now) {
		ev := e.list[e.next]
		e.next++
		ran++
		// The event happened at its time, which may be slots ago: its writes are dated there, so
		// that a simulation at confirmed or finalized sees what a real chain would by now.
		at := e.start.Add(ev.At)
		if err := e.chain.WriteAsOf(at, func() error { return ev.Apply(eventSim{e.world}) }); err != nil {
			errs = append(errs, fmt.Errorf("sim: event at %s (%s): %w", ev.At, ev.Desc, err))
			continue
		}
		e.log.Info("Scenario event", "at", ev.At, "event", ev.Desc)
		e.publishPrices(at) // a price the event moved is pushed when it moved
	}
	e.publishPrices(now)
	return ran, errors.Join(errs...)
}

// Pending returns how many scenario events have not run yet.
func (e *Events) Pending() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.list) - e.next
}

// catchUp wraps a handler so that due events run before each request.
func (e *Events) catchUp(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := e.RunDue(); err != nil {
			e.log.Warn("Scenario event failed", "err", err)
		}
		h.ServeHTTP(w, r)
	})
}

// runOnTheClock runs, on a clock that moves by itself, the scenario events that fell due and the Pyth
// pushes that are due, once a slot, until ctx ends: a real chain and market change whether anyone asks
// or not, and a client that only listens (a websocket subscriber) must see them. Every request still
// runs them first, so a request never sees a stale world; a manual clock runs them when it is advanced
// (a second runner would race Advance for the events it reports).
func (e *Events) runOnTheClock(ctx context.Context) {
	if _, manual := e.clock.(*chainsim.ManualClock); manual {
		return
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-e.clock.After(chainsim.SlotDuration):
			}
			if _, err := e.RunDue(); err != nil {
				e.log.Warn("Scenario event failed", "err", err)
			}
		}
	}()
}

// publishPrices pushes every feed that is due at now: never pushed, past
// its heartbeat, or off the oracle price by more than the deviation. The
// caller holds the market's lock.
func (e *Events) publishPrices(now time.Time) {
	for _, m := range e.w.Mints {
		f := m.Pyth
		if f == nil || f.Halted {
			continue
		}
		p, _ := e.w.Price(m.Address)
		moved := f.Price > 0 && math.Abs(p-f.Price)/f.Price > programs.PythDeviation
		if !f.At.IsZero() && now.Sub(f.At) < programs.PythHeartbeat && !moved {
			continue
		}
		if p <= 0 {
			continue
		}
		f.Price, f.At = p, now
		units := math.Round(p * math.Pow10(-programs.PythExponent))
		e.chain.State.SetAccount(f.Account, svm.Account{Lamports: pythRent, Owner: prices.ReceiverProgram,
			Data: prices.EncodeUpdate(prices.Update{WriteAuthority: f.Account, Full: true, Feed: f.ID,
				Price: int64(units), Conf: uint64(math.Round(units * programs.PythConfidence)), Exponent: programs.PythExponent,
				PublishTime: now, PostedSlot: e.chain.Ledger.Slot()})})
	}
}

// pythRent is the rent-exempt minimum of a 134-byte account.
const pythRent = 1_823_520
