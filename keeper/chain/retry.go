package chain

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"time"
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
