package chainsim

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// subKind is what a subscription watches.
type subKind int

// The subscription kinds.
const (
	subAccount subKind = iota
	subSignature
	subSlot
)

// subscription is one pubsub subscription of one connection.
type subscription struct {
	id   uint64
	conn *wsConn
	kind subKind
	cm   rpc.CommitmentType // account and signature subscriptions
	next uint64             // the first slot not yet examined at cm

	key      solana.PublicKey // account
	encoding string           // account: base64, base58 or binary
	slice    *dataSlice       // account: the part of the data to send, nil for all
	minSeq   uint64           // account: the first change made after subscribing

	sig solana.Signature // signature
}

// watch is the change history of an account some subscription watches.
type watch struct {
	last    *svm.Account // the state last observed; nil when absent
	changes []accountChange
	subs    map[uint64]*subscription
}

// accountChange is a state an account took in a slot.
type accountChange struct {
	slot uint64
	seq  uint64
	acct *svm.Account // nil when the account was deleted
}

// Pubsub holds the chain's pubsub subscriptions: the websocket connections
// of the RPC service and what each one subscribed to. Its tables are guarded
// by the chain's mu, so notifications are computed from the state the chain
// commits; sending them never blocks (see wsConn.send).
type Pubsub struct {
	c       *Chain
	lastID  uint64                      // the last subscription id handed out
	seq     uint64                      // the last account change observed
	subs    map[uint64]*subscription    // by id
	watches map[solana.PublicKey]*watch // accounts some subscription watches
	changed chan struct{}               // closed and replaced when subscriptions come or go
	// notified is OnNotified's function.
	notified notifiedHook
}

// OnNotified registers f to be called each time a signature notification
// is written to its subscriber's connection, with the signature and the
// chain clock's time as the write starts: when the chain's part of a
// websocket confirmation is done and only the network's is left. f runs on
// the connection's writer goroutine, before the write, and must return
// quickly. A later call replaces f.
func (h *Pubsub) OnNotified(f func(sig solana.Signature, at time.Time)) {
	h.notified.f.Store(&f)
}

// notifiedHook holds OnNotified's function; it is set and read without
// the chain's lock.
type notifiedHook struct {
	f atomic.Pointer[func(solana.Signature, time.Time)]
}

// writing returns the function that tells the hook, at clock's time, that
// sig's notification is being written, or nil when no function is set.
func (n *notifiedHook) writing(sig solana.Signature, clock Clock) func() {
	f := n.f.Load()
	if f == nil {
		return nil
	}
	return func() { (*f)(sig, clock.Now()) }
}

// newPubsub returns the subscriptions of c, none yet.
func newPubsub(c *Chain) *Pubsub {
	return &Pubsub{c: c, subs: map[uint64]*subscription{}, watches: map[solana.PublicKey]*watch{},
		changed: make(chan struct{})}
}

// add registers sub under a new id and returns the id. The caller holds
// the chain's mu.
func (h *Pubsub) add(sub *subscription) uint64 {
	h.lastID++
	sub.id = h.lastID
	h.subs[sub.id] = sub
	h.signal()
	if sub.kind == subSlot {
		return sub.id
	}
	if slot, ok := h.frontier(sub.cm); ok {
		sub.next = slot + 1
	}
	if sub.kind == subAccount {
		w := h.watches[sub.key]
		if w == nil {
			w = &watch{last: h.c.State.accounts[sub.key], subs: map[uint64]*subscription{}}
			h.watches[sub.key] = w
		}
		w.subs[sub.id] = sub
		sub.minSeq = h.seq + 1
	}
	return sub.id
}

// remove ends subscription id, reporting whether it existed. The caller
// holds the chain's mu.
func (h *Pubsub) remove(id uint64) bool {
	sub, ok := h.subs[id]
	if !ok {
		return false
	}
	delete(h.subs, id)
	h.signal()
	if w := h.watches[sub.key]; sub.kind == subAccount && w != nil {
		delete(w.subs, id)
		if len(w.subs) == 0 {
			delete(h.watches, sub.key)
		}
	}
	return true
}

// sortedSubs returns the subscriptions in id order, so notifications go
// out in a deterministic order.
func sortedSubs(subs map[uint64]*subscription) []*subscription {
	out := slices.Collect(maps.Values(subs))
	slices.SortFunc(out, func(a, b *subscription) int { return cmp.Compare(a.id, b.id) })
	return out
}

// signal wakes the callers of WaitSubscriptions.
func (h *Pubsub) signal() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Subscriptions returns how many pubsub subscriptions are open.
func (h *Pubsub) Subscriptions() int {
	return read(h.c, func() int { return len(h.subs) })
}

// WaitSubscriptions blocks until exactly n pubsub subscriptions are open,
// so a test can move the clock only once a client has subscribed (or has
// gone), or until ctx ends.
func (h *Pubsub) WaitSubscriptions(ctx context.Context, n int) error {
	for {
		h.c.lock()
		got, changed := len(h.subs), h.changed
		h.c.unlock()
		if got == n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("chainsim: waiting for %d subscriptions (%d open): %w", n, got, ctx.Err())
		}
	}
}
