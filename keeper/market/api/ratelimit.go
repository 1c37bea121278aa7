package api

import (
	"context"
	"sync"
	"time"
)

// limiter is a token bucket that adapts to the market: tokens refill at rate per second up to burst;
// each request takes one. A waiter reserves its token up front (the balance may go negative) and gives
// it back if its context ends first, so waiters are served in arrival order.
//
// The configured rate is a ceiling. A 429 answer (throttled) halves the rate, down to a sixteenth of
// the ceiling and at most once a second (the requests in flight when the market began refusing all
// come back refused, and count as one refusal), empties the bucket and holds every request until the
// answer's Retry-After has passed;
// each answer that is not a 429 (recovered) then raises the rate by a thirty-second of the ceiling,
// so that sixteen answers in a row bring a halved rate back (additive increase, multiplicative
// decrease, as TCP and most API clients do).
type limiter struct {
	mu      sync.Mutex
	ceiling float64   // the configured rate, tokens per second
	rate    float64   // the current rate, tokens per second; guarded by mu
	burst   float64   // bucket size; guarded by mu
	tokens  float64   // current balance; guarded by mu
	last    time.Time // the time from which the bucket refills (in the future while a Retry-After holds); guarded by mu
	cut     time.Time // when a 429 last halved the rate; guarded by mu
}

// cutEvery is how often, at most, 429s halve the rate.
const cutEvery = time.Second

// minRateShare is the lowest share of the ceiling that 429s bring the rate down to.
const minRateShare = 1.0 / 16

// recoverShare is the share of the ceiling one answer that is not a 429 gives back.
const recoverShare = 1.0 / 32

// newLimiter returns a limiter, or nil (no limit) when perSecond is 0.
func newLimiter(l RateLimit) *limiter {
	if l.PerSecond <= 0 {
		return nil
	}
	return &limiter{ceiling: l.PerSecond, rate: l.PerSecond, burst: float64(l.Burst), tokens: float64(l.Burst), last: time.Now()}
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
	if now.After(l.last) {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
		l.last = now
	}
	l.tokens--
	d := l.last.Sub(now) // a Retry-After still holding
	if l.tokens < 0 {
		d += time.Duration(-l.tokens / l.rate * float64(time.Second))
	}
	return d
}

// release gives back a reserved token that was not used.
func (l *limiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = min(l.burst, l.tokens+1)
}

// throttled takes in a 429 answer whose Retry-After was retryAfter (0: none): it halves the rate and
// holds every request until retryAfter has passed. It returns the new rate and whether it fell (false
// when the rate was at its floor already).
func (l *limiter) throttled(retryAfter time.Duration) (rate float64, fell bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now, old := time.Now(), l.rate
	if now.Sub(l.cut) >= cutEvery {
		l.rate, l.cut = max(l.ceiling*minRateShare, l.rate/2), now
	}
	l.tokens = min(l.tokens, 1)
	if until := now.Add(retryAfter); until.After(l.last) {
		l.last = until
	}
	return l.rate, l.rate < old
}

// recovered takes in an answer that was not a 429: the rate climbs back toward its ceiling.
func (l *limiter) recovered() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rate < l.ceiling {
		l.rate = min(l.ceiling, l.rate+l.ceiling*recoverShare)
	}
}
