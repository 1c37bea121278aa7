package api

import (
	"context"
	"sync"
	"time"
)

// limiter is a token bucket: tokens refill at rate per second up to burst; each request takes one.
// A waiter reserves its token up front (the balance may go negative) and gives it back if its context
// ends first, so waiters are served in arrival order.
type limiter struct {
	mu     sync.Mutex
	rate   float64   // tokens per second; guarded by mu
	burst  float64   // bucket size; guarded by mu
	tokens float64   // current balance; guarded by mu
	last   time.Time // time of the last refill; guarded by mu
}

// newLimiter returns a limiter, or nil (no limit) when perSecond is 0.
func newLimiter(l RateLimit) *limiter {
	if l.PerSecond <= 0 {
		return nil
	}
	return &limiter{rate: l.PerSecond, burst: float64(l.Burst), tokens: float64(l.Burst), last: time.Now()}
}

// wait blocks until a token is available or ctx ends. It returns at once with
// context.DeadlineExceeded when ctx's deadline comes before the token would.
func (l *limiter) wait(ctx context.Context) error {
	if l == nil {
		return ctx.Err()
	}
	d := l.reserve()
	if err := ctx.Err(); err != nil {
		l.release()
		return err
	}
	if d <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		l.release()
		return context.DeadlineExceeded
	}
	if err := sleep(ctx, d); err != nil {
		l.release()
		return err
	}
	return nil
}

// reserve takes a token and returns how long until it is covered.
func (l *limiter) reserve() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	l.tokens--
	if l.tokens >= 0 {
		return 0
	}
	return time.Duration(-l.tokens / l.rate * float64(time.Second))
}

// release gives back a reserved token that was not used.
func (l *limiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = min(l.burst, l.tokens+1)
}
