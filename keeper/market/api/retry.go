package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// retry runs do until it succeeds, fails terminally, exhausts the attempts, or ctx ends. Before each
// retry it waits the policy's backoff (at least the server's Retry-After); when that wait would pass
// ctx's deadline it returns the last error at once instead.
func (t *transport) retry(ctx context.Context, ep string, do func(context.Context) error) error {
	p := t.opts.Retry
	for attempt := 1; ; attempt++ {
		err := do(ctx)
		t.pace(ep, err)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !IsRetryable(err) || attempt >= p.MaxAttempts {
			return err
		}
		wait := max(p.backoff(attempt), retryAfterOf(err))
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return err
		}
		t.log.Warn("market call failed, retrying", "endpoint", ep, "attempt", attempt, "wait", wait, "err", err)
		if werr := sleep(ctx, wait); werr != nil {
			return fmt.Errorf("market: %s: stopped waiting to retry: %w; last error: %w", ep, werr, err)
		}
	}
}

// pace tells the rate limiter how an attempt went: a 429 slows every request down and holds them for
// its Retry-After; any other answer lets the rate climb back. An attempt that got no answer tells it
// nothing.
func (t *transport) pace(ep string, err error) {
	ae, answered := errors.AsType[*APIError](err)
	switch {
	case answered && ae.Status == http.StatusTooManyRequests:
		if rate, fell := t.limiter.throttled(ae.RetryAfter); fell {
			t.log.Warn("The market answered 429: slowing down", "endpoint", ep, "rate_per_second", rate,
				"ceiling_per_second", t.opts.RateLimit.PerSecond, "retry_after", ae.RetryAfter)
		}
	case err == nil || answered:
		t.limiter.recovered()
	}
}

// backoff returns the wait after failed attempt n (from 1): min(MaxBackoff, BaseBackoff·2^(n−1)),
// scaled by Rand() in [0, 1) unless DisableJitter.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.BaseBackoff
	for i := 1; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	if p.DisableJitter {
		return d
	}
	f := min(max(p.Rand(), 0), 1)
	return time.Duration(f * float64(d))
}

// retryAfterOf returns the Retry-After of an *APIError in err, or 0.
func retryAfterOf(err error) time.Duration {
	if ae, ok := errors.AsType[*APIError](err); ok {
		return ae.RetryAfter
	}
	return 0
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
