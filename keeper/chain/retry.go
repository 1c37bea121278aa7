package chain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/keeper-project/keeper/internal/wait"
)

// Retry is how often a call that failed on every endpoint with a transient
// error (429, 5xx, a timeout, a reset or malformed answer, a node behind) is
// tried again. Retrying is safe for every method keeper calls: reads and
// simulations change nothing, and a resent transaction or bundle carries the
// same signatures, which the chain accepts at most once.
type Retry struct {
	// Rounds is how many times all endpoints are tried in all; 1 disables
	// retries.
	Rounds int
	// Base is the wait after the first failed round, doubling after each
	// further one up to Max, with equal jitter (half fixed, half random).
	// A longer Retry-After of the last failure, up to maxRetryAfter, is
	// waited instead.
	Base time.Duration
	Max  time.Duration
}

// Defaults of Retry.
const (
	DefaultRetryRounds = 3
	DefaultRetryBase   = 200 * time.Millisecond
	DefaultRetryMax    = 2 * time.Second
)

// withDefaults fills zero fields.
func (r Retry) withDefaults() Retry {
	r.Rounds = cmp.Or(r.Rounds, DefaultRetryRounds)
	r.Base = cmp.Or(r.Base, DefaultRetryBase)
	r.Max = cmp.Or(r.Max, max(DefaultRetryMax, r.Base))
	return r
}

// validate reports settings that cannot work.
func (r Retry) validate() error {
	switch {
	case r.Rounds < 1:
		return errors.New("retry rounds must be at least 1")
	case r.Base < 0 || r.Max < r.Base:
		return errors.New("retry backoff must be positive, with max at least base")
	}
	return nil
}

// backoff returns the wait after failed round n (from 1).
func (r Retry) backoff(n int) time.Duration {
	d := r.Base
	for i := 1; i < n && d < r.Max; i++ {
		d *= 2
	}
	d = min(d, r.Max)
	return d/2 + rand.N(d/2+1)
}

// maxRetryAfter bounds the pause keeper honours when an endpoint answers
// 429 or 5xx with a Retry-After header: a longer one, from a hostile or
// broken header, is cut to one minute, so that it cannot park a call, or
// the endpoint, for longer.
const maxRetryAfter = time.Minute

// parseRetryAfter reads a Retry-After header, delay-seconds or an HTTP
// date (RFC 9110, section 10.2.3), as the pause it asks for from now, cut
// to maxRetryAfter; 0 when it is absent, malformed or past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	var d time.Duration
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		d = time.Duration(min(secs, uint64(maxRetryAfter/time.Second))) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// retryAfterOf returns the pause err asks for: an *HTTPError's Retry-After,
// or what was left of one when a request was not sent for it (*heldError);
// 0 otherwise.
func retryAfterOf(err error) time.Duration {
	if he, ok := errors.AsType[*HTTPError](err); ok {
		return he.RetryAfter
	}
	if he, ok := errors.AsType[*heldError](err); ok {
		return he.left
	}
	return 0
}

// passesDeadline reports whether a wait of d would end after ctx's deadline.
func passesDeadline(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < d
}

// heldError is a request not sent because its endpoint asked, with
// Retry-After, to be left alone until after the caller's deadline. It is
// the Err of a *TransportError, which names the method and the endpoint.
type heldError struct {
	left time.Duration // what was left of the pause
}

// Error implements error.
func (e *heldError) Error() string {
	return fmt.Sprintf("not sent: the endpoint asked (Retry-After) to be left alone for %v more, past the deadline", e.left.Round(time.Millisecond))
}

// ready waits until endpoint i may be sent a request: the pause it asked
// for with Retry-After, if any, is over and the rate limiter lets one more
// request through. A pause asked for by another call's answer while this
// one waited for the limiter is waited out too.
func (p *pool) ready(ctx context.Context, method string, i int) error {
	for {
		if err := p.waitHold(ctx, method, i); err != nil {
			return err
		}
		if err := p.limiter.Wait(ctx); err != nil {
			return fmt.Errorf("%s: waiting for the rate limiter: %w", method, err)
		}
		if p.held(i) == 0 {
			return nil
		}
	}
}

// waitHold waits out the pause endpoint i asked for with Retry-After, if
// any. When the pause would outlast ctx's deadline it returns at once a
// *TransportError holding a *heldError.
func (p *pool) waitHold(ctx context.Context, method string, i int) error {
	d := p.held(i)
	switch {
	case d == 0:
		return nil
	case passesDeadline(ctx, d):
		return &TransportError{Method: method, Endpoint: p.eps[i].name, Err: &heldError{left: d}}
	case !wait.For(ctx, d):
		return fmt.Errorf("%s: waiting out the Retry-After of %s: %w", method, p.eps[i].name, ctx.Err())
	}
	return nil
}

// held returns how much is left of the pause endpoint i asked for with
// Retry-After, or 0.
func (p *pool) held(i int) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(time.Until(p.holdUntil[i]), 0)
}
