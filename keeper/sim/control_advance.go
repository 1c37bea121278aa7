package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

var (
	errNotManual  = errors.New("sim control: advance: the clock is not manual (start the simulator with a manual clock)")
	errBadAdvance = errors.New("sim control: advance")
)

// maxAdvance bounds AdvanceRequest.Seconds and Until, so a typo cannot move the clock past every
// blockhash and event by years.
const maxAdvance = 24 * time.Hour

// AdvanceRequest is the body of POST /_sim/advance. Seconds and Until are exclusive; both zero moves
// nothing but still runs due events (and waits for traffic when asked).
type AdvanceRequest struct {
	// Seconds moves the clock forward by this many seconds.
	Seconds float64 `json:"seconds,omitempty"`
	// Until moves the clock to this many seconds after the simulator's start; nothing moves when the
	// clock is already there or past it.
	Until float64 `json:"until,omitempty"`
	// AfterTraffic, when set, first waits until the RPC and Jito services have served more than this
	// many requests in all (ControlState.Traffic and AdvanceResult.Traffic report the count), or until
	// the request is cancelled. A test passes the count from its previous advance, so the clock moves
	// once per request of the process under test and never faster than it talks to the chain.
	AfterTraffic *uint64 `json:"after_traffic,omitempty"`
	// AfterSubscriptions, when set, first waits until exactly this many pubsub subscriptions are
	// open on the RPC port, so that a change the advance makes is notified to a client that has
	// subscribed (or not to one that has gone).
	AfterSubscriptions *int `json:"after_subscriptions,omitempty"`
}

// AdvanceResult is the answer of POST /_sim/advance.
type AdvanceResult struct {
	// Now is the sim clock's time after the advance, Elapsed the seconds since the simulator's start.
	Now     time.Time `json:"now"`
	Elapsed float64   `json:"elapsed"`
	// Slot is the chain's current slot.
	Slot uint64 `json:"slot"`
	// Traffic is the count of RPC and Jito requests received so far.
	Traffic uint64 `json:"traffic"`
	// EventsRun is how many scenario events this advance ran; PendingEvents how many are still to come.
	EventsRun     int `json:"events_run"`
	PendingEvents int `json:"pending_events"`
}

// step returns how far req moves a clock that has run for elapsed since the start.
func (req AdvanceRequest) step(elapsed time.Duration) (time.Duration, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errBadAdvance, fmt.Sprintf(format, args...))
	}
	switch {
	case !validSeconds(req.Seconds):
		return 0, bad("seconds must be a number of seconds from 0 to %g, got %g", maxAdvance.Seconds(), req.Seconds)
	case !validSeconds(req.Until):
		return 0, bad("until must be a number of seconds from 0 to %g, got %g", maxAdvance.Seconds(), req.Until)
	case req.Seconds > 0 && req.Until > 0:
		return 0, bad("give seconds or until, not both")
	}
	if req.Until > 0 {
		return max(0, seconds(req.Until)-elapsed), nil
	}
	return seconds(req.Seconds), nil
}

// validSeconds reports whether v is a usable number of seconds for one advance.
func validSeconds(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= maxAdvance.Seconds() }

// seconds converts a number of seconds to a duration, to the nanosecond.
func seconds(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Second))) }

// Advance does what POST /_sim/advance does: wait for traffic when asked, move the manual clock and
// run the scenario events that became due. It fails for a clock that is not a *chainsim.ManualClock
// and when ctx ends while it waits.
func (c *Control) Advance(ctx context.Context, req AdvanceRequest) (AdvanceResult, error) {
	mc, ok := c.sim.clock.(*chainsim.ManualClock)
	if !ok {
		return AdvanceResult{}, errNotManual
	}
	if _, err := req.step(0); err != nil {
		return AdvanceResult{}, err
	}
	if req.AfterTraffic != nil {
		if err := c.traffic.wait(ctx, *req.AfterTraffic); err != nil {
			return AdvanceResult{}, err
		}
	}
	if req.AfterSubscriptions != nil {
		if err := c.sim.chain.Pubsub.WaitSubscriptions(ctx, *req.AfterSubscriptions); err != nil {
			return AdvanceResult{}, fmt.Errorf("sim control: advance: %w", err)
		}
	}
	c.advanceMu.Lock() // an Until step holds only if nobody moves the clock in between
	defer c.advanceMu.Unlock()
	d, err := req.step(mc.Now().Sub(c.sim.start))
	if err != nil {
		return AdvanceResult{}, err
	}
	mc.Advance(d)
	ran, err := c.sim.events.RunDue()
	if err != nil {
		return AdvanceResult{}, err
	}
	now := mc.Now()
	return AdvanceResult{Now: now.UTC(), Elapsed: now.Sub(c.sim.start).Seconds(), Slot: c.sim.chain.Ledger.Slot(),
		Traffic: c.Traffic(), EventsRun: ran, PendingEvents: c.sim.events.Pending()}, nil
}
