// Package watch tells keeper when chain accounts change and slots pass: it
// subscribes to them over the RPC's websocket (accountSubscribe and
// slotSubscribe, one chain.PubSub connection for everything watched), resubscribes after
// a lost connection with backoff, and polls the same accounts
// (getMultipleAccounts, getSlot) while no subscription serves, so that a
// change is never silently missed.
package watch

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Change is one account's new data (Account set), or a new slot (Account
// zero), at Slot. First marks the first sight of an account since it was
// watched: nothing to compare it with yet.
type Change struct {
	Account solana.PublicKey
	Data    []byte
	Slot    uint64
	First   bool
}

// Reader reads what the watcher polls; *chain.Client is one.
type Reader interface {
	MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error)
	Slot(ctx context.Context) (uint64, error)
}

// Options configure a Watcher.
type Options struct {
	// URL is the RPC's websocket endpoint; "" watches by polling alone.
	// It may carry a key: it is never logged or quoted whole.
	URL string
	// Commitment of the subscriptions and polls (default confirmed).
	Commitment rpc.CommitmentType
	// Poll is the polling interval while no subscription serves (default 2s).
	Poll time.Duration
	// Verify is how often the accounts are read while subscriptions serve,
	// in case a notification never comes (default 30s).
	Verify time.Duration
	// Backoff is the wait before the first reconnection after a failure
	// (default 1s); it doubles up to 30 s and resets once a connection
	// served a minute.
	Backoff time.Duration
	// Reader polls accounts and the slot.
	Reader Reader
	// Logger receives connection changes (default: discard).
	Logger *slog.Logger
	// OnChange hears every change, from the watcher's goroutines, one at a
	// time. It must return quickly.
	OnChange func(Change)
	// OnMode hears each switch between subscriptions and polling.
	OnMode func(m Mode, reason string)
}

// Mode says how the watcher learns of changes.
type Mode string

// The modes.
const (
	// ModeIdle watches nothing.
	ModeIdle Mode = "idle"
	// ModeSubscribed receives the node's notifications.
	ModeSubscribed Mode = "websocket"
	// ModePolling polls because no subscription serves.
	ModePolling Mode = "polling"
)

// Watcher watches a set of accounts, and slots when asked. It is safe for
// concurrent use; Run does the work.
type Watcher struct {
	o      Options
	emitMu sync.Mutex // one OnChange at a time

	mu      sync.Mutex
	keys    []solana.PublicKey          // guarded by mu; sorted
	slots   bool                        // guarded by mu
	last    map[solana.PublicKey][]byte // guarded by mu; data last seen
	slot    uint64                      // guarded by mu; highest slot seen
	mode    Mode                        // guarded by mu
	reason  string                      // guarded by mu; why polling
	changed chan struct{}               // closed and replaced when the set changes
}

// New returns a watcher of nothing; Set says what to watch.
func New(o Options) *Watcher {
	if o.Commitment == "" {
		o.Commitment = rpc.CommitmentConfirmed
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Verify <= 0 {
		o.Verify = 30 * time.Second
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.OnChange == nil {
		o.OnChange = func(Change) {}
	}
	return &Watcher{o: o, last: map[solana.PublicKey][]byte{}, mode: ModeIdle, changed: make(chan struct{})}
}

// Set makes accounts (and slots, when slots is true) what the watcher
// watches from now on. A running watcher resubscribes when the set
// changed.
func (w *Watcher) Set(accounts []solana.PublicKey, slots bool) {
	keys := slices.Clone(accounts)
	slices.SortFunc(keys, func(a, b solana.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	keys = slices.Compact(keys)
	w.mu.Lock()
	defer w.mu.Unlock()
	if slices.Equal(keys, w.keys) && slots == w.slots {
		return
	}
	w.keys, w.slots = keys, slots
	for k := range w.last {
		if _, found := slices.BinarySearchFunc(keys, k, func(a, b solana.PublicKey) int { return bytes.Compare(a[:], b[:]) }); !found {
			delete(w.last, k)
		}
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// watched returns the set and a channel closed when it changes.
func (w *Watcher) watched() (keys []solana.PublicKey, slots bool, changed <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.keys, w.slots, w.changed
}

// Mode returns how the watcher learns of changes now, and why it polls
// when it does.
func (w *Watcher) Mode() (Mode, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode, w.reason
}

// setMode records a switch of mode and tells OnMode.
func (w *Watcher) setMode(m Mode, reason string) {
	w.mu.Lock()
	same := w.mode == m && w.reason == reason
	w.mode, w.reason = m, reason
	w.mu.Unlock()
	if same {
		return
	}
	switch m {
	case ModePolling:
		w.o.Logger.Warn("Watching chain accounts by polling", "reason", reason, "every", w.o.Poll)
	case ModeSubscribed:
		w.o.Logger.Info("Watching chain accounts over the websocket")
	}
	if w.o.OnMode != nil {
		w.o.OnMode(m, reason)
	}
}

// account reports an account's data as seen at slot; OnChange hears it
// when it differs from what was seen last (or is its first sight).
func (w *Watcher) account(key solana.PublicKey, data []byte, slot uint64) {
	w.mu.Lock()
	prev, seen := w.last[key]
	watched := slices.ContainsFunc(w.keys, func(k solana.PublicKey) bool { return k == key })
	if !watched || (seen && bytes.Equal(prev, data)) {
		w.mu.Unlock()
		return
	}
	w.last[key] = bytes.Clone(data)
	w.mu.Unlock()
	w.emit(Change{Account: key, Data: data, Slot: slot, First: !seen})
}

// emit hands c to OnChange, one change at a time.
func (w *Watcher) emit(c Change) {
	w.emitMu.Lock()
	defer w.emitMu.Unlock()
	w.o.OnChange(c)
}

// slotReached reports a slot; OnChange hears each new highest slot.
func (w *Watcher) slotReached(slot uint64) {
	w.mu.Lock()
	if !w.slots || slot <= w.slot {
		w.mu.Unlock()
		return
	}
	w.slot = slot
	w.mu.Unlock()
	w.emit(Change{Slot: slot})
}
