package sim

import (
	"context"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// runEventsOnTheClock runs, on a clock that moves by itself, the scenario
// events that fell due and the Pyth pushes that are due, once a slot, until
// ctx ends: a real chain and market change whether anyone asks or not, and
// a client that only listens (a websocket subscriber) must see them. Every
// request still runs them first, so a request never sees a stale world; a
// manual clock runs them when it is advanced (a second runner would race
// Advance for the events it reports).
func (s *Sim) runEventsOnTheClock(ctx context.Context) {
	if _, manual := s.clock.(*chainsim.ManualClock); manual {
		return
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.clock.After(chainsim.SlotDuration):
			}
			if _, err := s.RunDue(); err != nil {
				s.log.Warn("Scenario event failed", "err", err)
			}
		}
	}()
}
