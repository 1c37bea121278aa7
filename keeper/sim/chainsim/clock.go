package chainsim

import (
	"sync"
	"time"
)

// Clock is the chain's source of time. Slots and block heights are derived
// from Now; injected latency waits on After.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives once d has passed on this clock.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock. Inside a testing/synctest bubble it follows
// the bubble's fake time, so latency faults need no real waiting there.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// ManualClock is a clock that moves only when told to. It is safe for
// concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []clockWaiter // guarded by mu; fired and removed by Advance
}

// clockWaiter is a pending After call.
type clockWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewManualClock returns a clock that reads start until it is advanced.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start}
}

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives once the clock has been advanced by
// at least d from now. A d of zero or less fires at once.
func (c *ManualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, clockWaiter{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock forward by d (a negative d is ignored) and fires
// every After whose time has come.
func (c *ManualClock) Advance(d time.Duration) {
	if d < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	clear(c.waiters[len(kept):])
	c.waiters = kept
}
