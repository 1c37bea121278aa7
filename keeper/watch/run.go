package watch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
)

// Reconnection backoff: the first retry after Options.Backoff, doubling up
// to maxBackoff; a connection that served stableAfter resets it.
const (
	maxBackoff     = 30 * time.Second
	stableAfter    = time.Minute
	connectTimeout = 5 * time.Second
)

// Run watches until ctx ends: over the websocket while it serves, by
// polling while it does not (and while the backoff before the next
// connection runs).
func (w *Watcher) Run(ctx context.Context) {
	backoff := w.o.Backoff
	for ctx.Err() == nil {
		keys, slots, changed := w.watched()
		if len(keys) == 0 && !slots {
			w.setMode(ModeIdle, "")
			select {
			case <-ctx.Done():
			case <-changed:
			}
			continue
		}
		if w.o.URL == "" {
			w.setMode(ModePolling, "no websocket endpoint")
			w.pollUntil(ctx, changed, nil)
			continue
		}
		start := time.Now()
		err := w.session(ctx, keys, slots, changed)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			continue // the set changed: subscribe to the new one now
		}
		if time.Since(start) > stableAfter {
			backoff = w.o.Backoff
		}
		w.setMode(ModePolling, err.Error())
		retry := time.After(backoff)
		w.pollUntil(ctx, changed, retry)
		backoff = min(2*backoff, maxBackoff)
	}
}

// pollUntil polls every Poll until ctx ends, the set changes or until
// fires (nil: never).
func (w *Watcher) pollUntil(ctx context.Context, changed <-chan struct{}, until <-chan time.Time) {
	t := time.NewTicker(w.o.Poll)
	defer t.Stop()
	w.poll(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			return
		case <-until:
			return
		case <-t.C:
			w.poll(ctx)
		}
	}
}

// poll reads the watched accounts and the slot once. A failed read is
// logged; the next poll tries again.
func (w *Watcher) poll(ctx context.Context) {
	keys, slots, _ := w.watched()
	if w.o.Reader == nil {
		return
	}
	var slot uint64
	if slots || len(keys) > 0 {
		s, err := w.o.Reader.Slot(ctx)
		if err != nil {
			w.o.Logger.Warn("Cannot poll the slot", "err", err)
		}
		slot = s
	}
	if len(keys) > 0 {
		data, err := w.o.Reader.MultipleAccounts(ctx, keys)
		if err != nil {
			w.o.Logger.Warn("Cannot poll watched accounts", "accounts", len(keys), "err", err)
		} else {
			for i, k := range keys {
				w.account(k, data[i], slot)
			}
		}
	}
	if slot > 0 {
		w.slotReached(slot)
	}
}

// session connects, subscribes to everything watched, reads it once (to
// see what changed while no subscription served) and delivers
// notifications until a subscription fails (the error says why), the set
// changes (nil) or ctx ends. It reads everything again every Verify, so a
// notification a provider failed to send delays a change, never loses it.
func (w *Watcher) session(ctx context.Context, keys []solana.PublicKey, slots bool, changed <-chan struct{}) error {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	url := endpoint(w.o.URL)
	conn, err := chain.DialPubSub(cctx, string(url))
	if err != nil {
		return url.dialFailed(err)
	}
	defer conn.Close()
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	done := make(chan struct{}, len(keys)+1) // a receiver never waits to say it ended
	n := 0
	for _, k := range keys {
		sub, err := conn.Subscribe(cctx, "accountSubscribe",
			[]any{k.String(), map[string]any{"encoding": "base64", "commitment": w.o.Commitment}}, "accountUnsubscribe")
		if err != nil {
			return url.subscribeFailed(err)
		}
		n++
		go receive(sctx, url, stop, done, sub, func(res accountNotification) { w.account(k, res.data(), res.Context.Slot) })
	}
	if slots {
		sub, err := conn.Subscribe(cctx, "slotSubscribe", []any{}, "slotUnsubscribe")
		if err != nil {
			return url.subscribeFailed(err)
		}
		n++
		go receive(sctx, url, stop, done, sub, func(res slotNotification) { w.slotReached(res.Slot) })
	}
	w.setMode(ModeSubscribed, "")
	w.poll(ctx)
	verify := time.NewTicker(w.o.Verify)
	defer verify.Stop()
	for serving := true; serving; {
		select {
		case <-ctx.Done():
			serving = false
		case <-changed:
			serving = false
		case <-sctx.Done():
			serving = false
		case <-verify.C:
			w.poll(ctx) // a change no notification brought is seen here, late but not lost
		}
	}
	stop(nil)
	conn.Close()
	for range n {
		<-done
	}
	if err := context.Cause(sctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// receive hands each notification of sub, decoded as T, to handle until
// the subscription fails; then it ends the session with why (nothing when
// the session was ending).
func receive[T any](ctx context.Context, url endpoint, fail context.CancelCauseFunc, done chan<- struct{},
	sub *chain.Subscription, handle func(T)) {
	defer func() { done <- struct{}{} }()
	for {
		raw, err := sub.Next(ctx)
		if err != nil {
			fail(url.lost(ctx, err))
			return
		}
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			fail(url.garbled(err))
			return
		}
		handle(v)
	}
}

// accountNotification is the result of an accountNotification.
type accountNotification struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value *struct {
		Data []string `json:"data"` // [base64 data, "base64"]
	} `json:"value"`
}

// data is the account's data (nil for a closed account or data it cannot
// read).
func (n accountNotification) data() []byte {
	if n.Value == nil || len(n.Value.Data) == 0 {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(n.Value.Data[0])
	if err != nil {
		return nil
	}
	return b
}

// slotNotification is the result of a slotNotification.
type slotNotification struct {
	Slot uint64 `json:"slot"`
}
