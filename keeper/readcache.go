package keeper

import (
	"context"
	"sync"
	"time"
)

// readCache shares one market or chain read between the policies of one
// tick: policies scheduled together ask for the same data, and the first to
// ask reads it while the others wait for that answer. An entry serves for
// ttl after its read completed (a read may itself take longer than ttl),
// so the next tick reads afresh. An entry past its ttl is dropped then, not
// at the next tick's read of its key: a daemon between ticks does not hold
// what it last read. Loans are not kept here: they are read by the walks
// the policies of a tick share (loanWalks).
type readCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	done chan struct{}
	at   time.Time // when the read completed; written under the cache's lock before done closes
	val  any
	err  error
}

// isDone reports whether the entry's read completed.
func (e *cacheEntry) isDone() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

func newReadCache(ttl time.Duration, now func() time.Time) *readCache {
	return &readCache{ttl: ttl, now: now, entries: map[string]*cacheEntry{}}
}

// cached returns the value read under key within the cache's ttl, or reads
// it with read. A failed read is not kept.
func cached[T any](ctx context.Context, c *readCache, key string, read func(context.Context) (T, error)) (T, error) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok && e.isDone() && c.now().Sub(e.at) >= c.ttl {
		ok = false
	}
	if !ok {
		e = &cacheEntry{done: make(chan struct{})}
		c.entries[key] = e
		c.mu.Unlock()
		e.val, e.err = read(ctx)
		c.mu.Lock()
		e.at = c.now()
		if e.err != nil && c.entries[key] == e {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		close(e.done)
		if e.err == nil {
			time.AfterFunc(c.ttl, func() { c.expire(key, e) })
		}
	} else {
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
	if e.err != nil {
		var zero T
		return zero, e.err
	}
	return e.val.(T), nil
}

// expire drops entry e of key once it is past the cache's ttl by the
// cache's clock. A clock that has not moved since the read (a test's) leaves
// it to be replaced by the next read of key, as one that has moved less than
// ttl does until it has.
func (c *readCache) expire(key string, e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] != e {
		return
	}
	now := c.now()
	switch age := now.Sub(e.at); {
	case age >= c.ttl:
		delete(c.entries, key)
	case now.After(e.at):
		time.AfterFunc(c.ttl-age, func() { c.expire(key, e) })
	}
}

// forget drops every entry: after an action may have changed the chain,
// no policy should decide from what was read before it. A read under way
// still answers those already waiting for it.
func (c *readCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}
