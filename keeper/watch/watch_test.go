package watch_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/watch"
)

// guard bounds how long a test waits on real time for what should happen
// at once; it only turns a hang into a failure.
const guard = 30 * time.Second

// node is a simulated chain served on loopback (a websocket dial does not
// go through an injected HTTP client), with a manual clock.
type node struct {
	sim *chainsim.Chain
	clk *chainsim.ManualClock
	url string
}

func startNode(t *testing.T, faults chainsim.Faults) *node {
	t.Helper()
	clk := chainsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim, err := chainsim.New(chainsim.Options{Clock: clk, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: sim.RPC()}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &node{sim: sim, clk: clk, url: "http://" + ln.Addr().String()}
}

// set writes data into key's account and ends the slot, so that the node
// notifies the change.
func (n *node) set(key solana.PublicKey, data []byte) {
	n.sim.State.SetAccount(key, svm.Account{Lamports: 1_000_000, Owner: solana.SystemProgramID, Data: data})
	n.clk.Advance(chainsim.SlotDuration)
}

// recorder collects what a watcher reports.
type recorder struct {
	mu      sync.Mutex
	changes []watch.Change
	modes   []watch.Mode
	wake    chan struct{}
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1)} }

func (r *recorder) change(c watch.Change) {
	r.mu.Lock()
	r.changes = append(r.changes, c)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) mode(m watch.Mode, _ string) {
	r.mu.Lock()
	r.modes = append(r.modes, m)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// await waits until ok holds over the record, failing after guard.
func (r *recorder) await(t *testing.T, what string, ok func(changes []watch.Change, modes []watch.Mode) bool) {
	t.Helper()
	deadline := time.After(guard)
	for {
		r.mu.Lock()
		done := ok(r.changes, r.modes)
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-r.wake:
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("never saw %s; changes %d, modes %v", what, len(r.changes), r.modes)
		}
	}
}

// sawData reports a change of key to data.
func sawData(key solana.PublicKey, data []byte) func([]watch.Change, []watch.Mode) bool {
	return func(cs []watch.Change, _ []watch.Mode) bool {
		for _, c := range cs {
			if c.Account == key && bytes.Equal(c.Data, data) {
				return true
			}
		}
		return false
	}
}

// start runs a watcher of keys (and slots) against n.
func start(t *testing.T, n *node, url string, keys []solana.PublicKey, slots bool, logs *bytes.Buffer) (*watch.Watcher, *recorder) {
	t.Helper()
	return startWith(t, n, watch.Options{URL: url}, keys, slots, logs)
}

// startWith is start with o's URL and Verify.
func startWith(t *testing.T, n *node, o watch.Options, keys []solana.PublicKey, slots bool, logs *bytes.Buffer) (*watch.Watcher, *recorder) {
	t.Helper()
	client, err := chain.New(chain.Options{RPCURLs: []string{n.url}, Commitment: rpc.CommitmentConfirmed, PollOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	rec := newRecorder()
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(&syncWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	w := watch.New(watch.Options{URL: o.URL, Commitment: rpc.CommitmentConfirmed, Poll: 20 * time.Millisecond, Verify: o.Verify,
		Backoff: 50 * time.Millisecond, Reader: client, Logger: logger, OnChange: rec.change, OnMode: rec.mode})
	w.Set(keys, slots)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return w, rec
}

// syncWriter serializes writes to a buffer shared with the test.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestWatchSubscribes sees an account's first state, then each change the
// node notifies over the websocket, and the slots; a write that leaves the
// data as it was is no change.
func TestWatchSubscribes(t *testing.T) {
	n := startNode(t, chainsim.Faults{})
	key := solana.NewWallet().PublicKey()
	n.set(key, []byte{1})
	w, rec := start(t, n, chain.WebsocketURL(n.url), []solana.PublicKey{key}, true, nil)
	rec.await(t, "the first state", sawData(key, []byte{1}))
	if err := n.sim.Pubsub.WaitSubscriptions(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	if m, _ := w.Mode(); m != watch.ModeSubscribed {
		t.Fatalf("mode %s, want websocket", m)
	}
	n.set(key, []byte{1}) // the same data: no change
	n.set(key, []byte{2})
	rec.await(t, "the change", sawData(key, []byte{2}))
	rec.await(t, "slots", func(cs []watch.Change, _ []watch.Mode) bool {
		for _, c := range cs {
			if c.Account.IsZero() && c.Slot > 0 {
				return true
			}
		}
		return false
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var datas [][]byte
	for _, c := range rec.changes {
		if c.Account == key {
			datas = append(datas, c.Data)
		}
	}
	if len(datas) != 2 || !rec.changes[0].First {
		t.Errorf("account changes %v (first flagged %v), want [1] then [2]", datas, rec.changes[0].First)
	}
}

// TestWatchPollsWhenRefused watches by polling when the node refuses the
// websocket, and still sees every change.
func TestWatchPollsWhenRefused(t *testing.T) {
	n := startNode(t, chainsim.Faults{Pubsub: chainsim.PubsubFaults{RefuseUpgrade: true}})
	key := solana.NewWallet().PublicKey()
	n.set(key, []byte{1})
	w, rec := start(t, n, chain.WebsocketURL(n.url), []solana.PublicKey{key}, false, nil)
	rec.await(t, "polling", func(_ []watch.Change, ms []watch.Mode) bool { return len(ms) > 0 && ms[len(ms)-1] == watch.ModePolling })
	n.set(key, []byte{2})
	rec.await(t, "the change by polling", sawData(key, []byte{2}))
	if m, reason := w.Mode(); m != watch.ModePolling || !strings.Contains(reason, "connecting the websocket") {
		t.Errorf("mode %s (%q), want polling because the websocket cannot be connected", m, reason)
	}
}

// TestWatchMissesNothingAcrossADrop loses the connection after each
// notification: the change made while it is down is seen (by polling, or
// by the read that follows resubscribing), and the watcher subscribes
// again.
func TestWatchMissesNothingAcrossADrop(t *testing.T) {
	n := startNode(t, chainsim.Faults{Pubsub: chainsim.PubsubFaults{DropAfter: 1}})
	key := solana.NewWallet().PublicKey()
	n.set(key, []byte{1})
	_, rec := start(t, n, chain.WebsocketURL(n.url), []solana.PublicKey{key}, false, nil)
	rec.await(t, "the first state", sawData(key, []byte{1}))
	if err := n.sim.Pubsub.WaitSubscriptions(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	n.set(key, []byte{2}) // notified, then the connection drops
	rec.await(t, "the notified change", sawData(key, []byte{2}))
	n.set(key, []byte{3}) // while the connection is down or coming back
	rec.await(t, "the change made across the drop", sawData(key, []byte{3}))
	rec.await(t, "websocket, polling and websocket again", func(_ []watch.Change, ms []watch.Mode) bool {
		seen := 0
		for _, m := range ms {
			if (seen%2 == 0 && m == watch.ModeSubscribed) || (seen%2 == 1 && m == watch.ModePolling) {
				seen++
			}
		}
		return seen >= 3
	})
}

// TestWatchKeepsTheKeySecret points the watcher at a closed port with a
// key in the URL: it polls, and no log line or reason holds the key.
func TestWatchKeepsTheKeySecret(t *testing.T) {
	const key = "s3cr3t-api-key-123456"
	n := startNode(t, chainsim.Faults{})
	acct := solana.NewWallet().PublicKey()
	n.set(acct, []byte{1})
	var logs bytes.Buffer
	w, rec := start(t, n, "ws://127.0.0.1:1/"+key+"?api-key="+key, []solana.PublicKey{acct}, false, &logs)
	rec.await(t, "polling", func(_ []watch.Change, ms []watch.Mode) bool { return len(ms) > 0 && ms[len(ms)-1] == watch.ModePolling })
	_, reason := w.Mode()
	w.Set(nil, false) // stop, so the log is complete
	rec.await(t, "idle", func(_ []watch.Change, ms []watch.Mode) bool { return ms[len(ms)-1] == watch.ModeIdle })
	out := logs.String()
	if strings.Contains(out, key) || strings.Contains(reason, key) {
		t.Fatalf("the key leaked:\nreason: %s\nlogs:\n%s", reason, out)
	}
	if !strings.Contains(out, "Watching chain accounts by polling") {
		t.Errorf("no line says the watcher polls:\n%s", out)
	}
}

// TestWatchReadsWhatNoNotificationBrings changes an account without ending
// its slot, so the node sends no notification: the watcher, subscribed,
// still sees the change by its periodic read.
func TestWatchReadsWhatNoNotificationBrings(t *testing.T) {
	n := startNode(t, chainsim.Faults{})
	key := solana.NewWallet().PublicKey()
	n.set(key, []byte{1})
	_, rec := startWith(t, n, watch.Options{URL: chain.WebsocketURL(n.url), Verify: 20 * time.Millisecond}, []solana.PublicKey{key}, false, nil)
	rec.await(t, "the first state", sawData(key, []byte{1}))
	if err := n.sim.Pubsub.WaitSubscriptions(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	n.sim.State.SetAccount(key, svm.Account{Lamports: 1_000_000, Owner: solana.SystemProgramID, Data: []byte{2}})
	rec.await(t, "the change by the periodic read", sawData(key, []byte{2}))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if last := rec.modes[len(rec.modes)-1]; last != watch.ModeSubscribed {
		t.Errorf("mode %s, want still subscribed", last)
	}
}

// TestWatchRecoversFromAnOversizedMessage makes the node notify an account
// larger than Solana allows (10 MiB): the message is over the websocket's
// cap, so the connection drops (counted) and the watcher polls, then
// subscribes again and sees the next change.
func TestWatchRecoversFromAnOversizedMessage(t *testing.T) {
	n := startNode(t, chainsim.Faults{})
	key := solana.NewWallet().PublicKey()
	n.set(key, []byte{1})
	before := chain.OversizedMessages()
	var logs bytes.Buffer
	_, rec := start(t, n, chain.WebsocketURL(n.url), []solana.PublicKey{key}, false, &logs)
	rec.await(t, "the first state", sawData(key, []byte{1}))
	if err := n.sim.Pubsub.WaitSubscriptions(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	huge := bytes.Repeat([]byte{7}, 10<<20+8<<10) // its notification is over the cap with any envelope
	n.set(key, huge)
	rec.await(t, "the dropped connection", func(_ []watch.Change, ms []watch.Mode) bool {
		return len(ms) > 0 && ms[len(ms)-1] == watch.ModePolling
	})
	if got := chain.OversizedMessages(); got != before+1 {
		t.Errorf("oversized messages %d, want %d", got, before+1)
	}
	n.set(key, []byte{3})
	rec.await(t, "the next change", sawData(key, []byte{3}))
	rec.await(t, "websocket again", func(_ []watch.Change, ms []watch.Mode) bool { return ms[len(ms)-1] == watch.ModeSubscribed })
	if !strings.Contains(logs.String(), "a message over") {
		t.Errorf("no line says why the websocket dropped:\n%.2000s", logs.String())
	}
}
