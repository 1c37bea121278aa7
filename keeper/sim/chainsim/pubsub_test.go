package chainsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
	"github.com/gorilla/websocket"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// guard is the failure deadline of every wait in these tests; nothing
// waits on real time otherwise.
const guard = 10 * time.Second

// wsURL serves c's RPC on a test server and returns its websocket URL.
func wsURL(t *testing.T, c *Chain) string {
	t.Helper()
	srv := httptest.NewServer(c.RPC().Handler())
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// wsClient connects solana-go's websocket client to c.
func wsClient(t *testing.T, c *Chain) *ws.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cl, err := ws.Connect(ctx, wsURL(t, c))
	if err != nil {
		t.Fatalf("ws.Connect: %v", err)
	}
	t.Cleanup(func() {
		cl.Close()
		waitSubs(t, c, 0)
	})
	return cl
}

// waitSubs waits until c has n open subscriptions.
func waitSubs(t *testing.T, c *Chain, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.Pubsub.WaitSubscriptions(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// step moves the clock n slots and brings the chain up to it, which sends
// the notifications of the slots that passed.
func step(c *Chain, clk *ManualClock, n int) uint64 {
	advanceSlots(clk, n)
	return c.Ledger.Slot()
}

// recvCtx is a context bounded by guard.
func recvCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

func TestAccountSubscribeNotifiesOnceAtTheLandingSlot(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := wsClient(t, c)
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	step(c, clk, 3)
	sub, err := cl.AccountSubscribeWithOpts(bob, rpc.CommitmentConfirmed, solana.EncodingBase64)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	waitSubs(t, c, 1)
	if _, err := c.SendTransaction(raw(t, transfer(t, alice, bob, 4242, latest(c)))); err != nil {
		t.Fatalf("send: %v", err)
	}
	landed := c.Ledger.Slot()
	if _, err := c.SendTransaction(raw(t, transfer(t, alice, bob, 1, latest(c)))); err != nil {
		t.Fatalf("send: %v", err)
	}
	step(c, clk, 1) // slot landed is over and confirmed
	got, err := sub.Recv(recvCtx(t))
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	if got.Context.Slot != landed || got.Value.Lamports != 4243 || got.Value.Owner != solana.SystemProgramID {
		t.Fatalf("notification at slot %d with %d lamports owned by %s, want slot %d, 4243, System",
			got.Context.Slot, got.Value.Lamports, got.Value.Owner, landed)
	}
	// The next slot changes nothing: the next notification is the next change.
	step(c, clk, 1)
	if _, err := c.SendTransaction(raw(t, transfer(t, alice, bob, 7, latest(c)))); err != nil {
		t.Fatalf("send: %v", err)
	}
	again := c.Ledger.Slot()
	step(c, clk, 1)
	got, err = sub.Recv(recvCtx(t))
	if err != nil || got.Context.Slot != again || got.Value.Lamports != 4250 {
		t.Fatalf("second notification = %+v, %v; want slot %d with 4250 lamports", got, err, again)
	}
}

func TestSignatureSubscribeNotifiesOnceWhenConfirmed(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := wsClient(t, c)
	alice, bob, carol := newKey("alice"), newKey("bob").PublicKey(), newKey("carol").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	ok := transfer(t, alice, bob, 100, latest(c))
	failing := signTx(t, []solana.Instruction{
		system.NewTransferInstruction(10, alice.PublicKey(), bob).Build(),
		system.NewTransferInstruction(5_000_000, alice.PublicKey(), carol).Build(),
	}, latest(c), alice)
	okSub, err := cl.SignatureSubscribe(ok.Signatures[0], rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	failSub, err := cl.SignatureSubscribe(failing.Signatures[0], rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	waitSubs(t, c, 2)
	for _, tx := range []*solana.Transaction{ok, failing} {
		if _, err := c.SendTransaction(raw(t, tx)); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	landed := c.Ledger.Slot()
	if c.Pubsub.Subscriptions() != 2 {
		t.Fatal("a signature notified before its block was confirmed")
	}
	step(c, clk, 1)
	got, err := okSub.Recv(recvCtx(t))
	if err != nil || got.Context.Slot != landed || got.Value.Err != nil {
		t.Fatalf("notification = %+v, %v; want slot %d, err null", got, err, landed)
	}
	got, err = failSub.Recv(recvCtx(t))
	if err != nil || got.Context.Slot != landed {
		t.Fatalf("notification = %+v, %v; want slot %d", got, err, landed)
	}
	want := map[string]any{"InstructionError": []any{"1", map[string]any{"Custom": "1"}}}
	if !jsonEqual(t, got.Value.Err, want) {
		t.Fatalf("err = %#v, want %v", got.Value.Err, want)
	}
	if n := c.Pubsub.Subscriptions(); n != 0 {
		t.Fatalf("%d subscriptions left; a signature subscription ends with its notification", n)
	}
}

func TestOnNotifiedReportsEachSignatureNotificationWrite(t *testing.T) {
	c, clk := newChain(t, Options{})
	type notified struct {
		sig solana.Signature
		at  time.Time
	}
	got := make(chan notified, 4)
	c.Pubsub.OnNotified(func(sig solana.Signature, at time.Time) { got <- notified{sig, at} })
	cl := wsClient(t, c)
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	watched, unwatched := transfer(t, alice, bob, 100, latest(c)), transfer(t, alice, bob, 200, latest(c))
	sub, err := cl.SignatureSubscribe(watched.Signatures[0], rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	waitSubs(t, c, 1)
	for _, tx := range []*solana.Transaction{watched, unwatched} {
		if _, err := c.SendTransaction(raw(t, tx)); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	select {
	case n := <-got:
		t.Fatalf("%s reported notified before its block was confirmed", n.sig)
	default:
	}
	step(c, clk, 1)
	if _, err := sub.Recv(recvCtx(t)); err != nil {
		t.Fatalf("recv: %v", err)
	}
	select {
	case n := <-got:
		if n.sig != watched.Signatures[0] || !n.at.Equal(clk.Now()) {
			t.Errorf("reported %s at %v, want %s at %v (the clock as it was written)", n.sig, n.at, watched.Signatures[0], clk.Now())
		}
	case <-recvCtx(t).Done():
		t.Fatal("the written notification was not reported")
	}
	if len(got) != 0 {
		t.Errorf("%d more notifications reported, want only the subscribed signature's", len(got))
	}
}

func TestSlotSubscribeSeesConsecutiveSlots(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := wsClient(t, c)
	step(c, clk, 40)
	sub, err := cl.SlotSubscribe()
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	waitSubs(t, c, 1)
	step(c, clk, 3)
	for want := uint64(41); want <= 43; want++ {
		got, err := sub.Recv(recvCtx(t))
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		if got.Slot != want || got.Parent != want-1 || got.Root != want-32 {
			t.Fatalf("slot notification = %+v, want slot %d parent %d root %d", got, want, want-1, want-32)
		}
	}
}

// rawConn is a bare websocket client, for the exact JSON of the protocol.
type rawConn struct {
	t  *testing.T
	ws *websocket.Conn
}

// dialRaw connects a bare websocket client to c.
func dialRaw(t *testing.T, c *Chain) *rawConn {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial(wsURL(t, c), nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	resp.Body.Close()
	t.Cleanup(func() {
		conn.Close()
		waitSubs(t, c, 0)
	})
	return &rawConn{t: t, ws: conn}
}

// call sends a request and returns the next message.
func (r *rawConn) call(req string) map[string]any {
	r.t.Helper()
	if err := r.ws.WriteMessage(websocket.TextMessage, []byte(req)); err != nil {
		r.t.Fatalf("write: %v", err)
	}
	return r.next()
}

// next reads one message.
func (r *rawConn) next() map[string]any {
	r.t.Helper()
	_ = r.ws.SetReadDeadline(time.Now().Add(guard))
	_, msg, err := r.ws.ReadMessage()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	var out map[string]any
	d := json.NewDecoder(bytes.NewReader(msg))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		r.t.Fatalf("decode %s: %v", msg, err)
	}
	return out
}

func TestUnsubscribeStopsNotifications(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	r := dialRaw(t, c)
	sub := r.call(`{"jsonrpc":"2.0","id":1,"method":"accountSubscribe","params":["` + bob.String() + `",{"encoding":"base64","commitment":"processed"}]}`)
	if sub["result"] != json.Number("1") || sub["id"] != json.Number("1") {
		t.Fatalf("subscribe reply = %v", sub)
	}
	if got := r.call(`{"jsonrpc":"2.0","id":2,"method":"accountUnsubscribe","params":[1]}`); got["result"] != true {
		t.Fatalf("unsubscribe reply = %v, want true", got)
	}
	again := r.call(`{"jsonrpc":"2.0","id":3,"method":"accountUnsubscribe","params":[1]}`)
	if e, _ := again["error"].(map[string]any); e == nil || e["code"] != json.Number("-32602") {
		t.Fatalf("second unsubscribe = %v, want -32602 Invalid subscription id.", again)
	}
	if got := r.call(`{"jsonrpc":"2.0","id":4,"method":"slotSubscribe"}`); got["result"] != json.Number("2") {
		t.Fatalf("slotSubscribe reply = %v", got)
	}
	if _, err := c.SendTransaction(raw(t, transfer(t, alice, bob, 5, latest(c)))); err != nil {
		t.Fatalf("send: %v", err)
	}
	step(c, clk, 1)
	got := r.next()
	if got["method"] != "slotNotification" {
		t.Fatalf("after unsubscribing, got %v; want only the slot notification", got)
	}
	params := got["params"].(map[string]any)
	if params["subscription"] != json.Number("2") || params["result"].(map[string]any)["slot"] != json.Number("1") {
		t.Fatalf("slot notification = %v", got)
	}
}

func TestAccountSubscribeRefusesJSONParsed(t *testing.T) {
	c, _ := newChain(t, Options{})
	r := dialRaw(t, c)
	got := r.call(`{"jsonrpc":"2.0","id":7,"method":"accountSubscribe","params":["` + newKey("bob").PublicKey().String() + `",{"encoding":"jsonParsed"}]}`)
	e, _ := got["error"].(map[string]any)
	if e == nil || e["code"] != json.Number("-32602") || !strings.Contains(e["message"].(string), "jsonParsed") {
		t.Fatalf("reply = %v, want -32602 naming jsonParsed", got)
	}
	if got := r.call(`{"jsonrpc":"2.0","id":8,"method":"getSlot"}`); got["error"].(map[string]any)["code"] != json.Number("-32601") {
		t.Fatalf("getSlot over pubsub = %v, want method not found", got)
	}
}

func TestSlowClientDoesNotBlockTheChain(t *testing.T) {
	c, clk := newChain(t, Options{})
	r := dialRaw(t, c)
	if got := r.call(`{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}`); got["result"] != json.Number("1") {
		t.Fatalf("slotSubscribe reply = %v", got)
	}
	// The client reads nothing more: far more slots pass than its queue and
	// the sockets' buffers hold.
	const jump = 64 * WSQueueLimit
	if got := step(c, clk, jump); got != jump {
		t.Fatalf("slot = %d, want %d", got, jump)
	}
	waitSubs(t, c, 0) // the connection was dropped with its subscription
	for {
		_ = r.ws.SetReadDeadline(time.Now().Add(guard))
		if _, _, err := r.ws.ReadMessage(); err != nil {
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the dropped connection stayed open")
			}
			break
		}
	}
}

func TestClosedClientEndsItsSubscriptions(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := wsClient(t, c)
	if _, err := cl.SlotSubscribe(); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if _, err := cl.AccountSubscribe(newKey("bob").PublicKey(), rpc.CommitmentFinalized); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	waitSubs(t, c, 2)
	cl.Close()
	waitSubs(t, c, 0)
	if got := step(c, clk, 10); got != 10 {
		t.Fatalf("slot = %d, want 10", got)
	}
}

func TestScheduledUpdateIsNotifiedAtItsSlot(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := wsClient(t, c)
	key := newKey("oracle").PublicKey()
	c.State.SetAccount(key, svm.Account{Lamports: 1, Owner: solana.SystemProgramID, Data: []byte{1}})
	c.State.ScheduleUpdate(5, key, func(a svm.Account, _ bool) (svm.Account, error) {
		a.Data = []byte{2}
		return a, nil
	})
	sub, err := cl.AccountSubscribeWithOpts(key, rpc.CommitmentProcessed, solana.EncodingBase64)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	waitSubs(t, c, 1)
	step(c, clk, 10) // one jump over slot 5
	got, err := sub.Recv(recvCtx(t))
	if err != nil || got.Context.Slot != 5 || !bytes.Equal(got.Value.Data.GetBinary(), []byte{2}) {
		t.Fatalf("notification = %+v, %v; want slot 5 with data [2]", got, err)
	}
}

func TestPubsubFaults(t *testing.T) {
	t.Run("refuse upgrade", func(t *testing.T) {
		c, _ := newChain(t, Options{Faults: Faults{Pubsub: PubsubFaults{RefuseUpgrade: true}}})
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if cl, err := ws.Connect(ctx, wsURL(t, c)); err == nil || !strings.Contains(err.Error(), "503") {
			if cl != nil {
				cl.Close()
			}
			t.Fatalf("connect = %v, want a 503 refusal", err)
		}
	})
	t.Run("drop after", func(t *testing.T) {
		c, clk := newChain(t, Options{Faults: Faults{Pubsub: PubsubFaults{DropAfter: 2}}})
		r := dialRaw(t, c)
		if got := r.call(`{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}`); got["result"] != json.Number("1") {
			t.Fatalf("slotSubscribe reply = %v", got)
		}
		step(c, clk, 3)
		for range 2 {
			if got := r.next(); got["method"] != "slotNotification" {
				t.Fatalf("got %v, want a slot notification", got)
			}
		}
		_ = r.ws.SetReadDeadline(time.Now().Add(guard))
		if _, msg, err := r.ws.ReadMessage(); err == nil || strings.Contains(err.Error(), "timeout") {
			t.Fatalf("third read = %s, %v; want the connection closed", msg, err)
		}
		waitSubs(t, c, 0)
	})
}

// armClock is a ManualClock that reports on armed (buffered, so the
// driver never blocks on it) each wait the slot driver arms, after running
// before, if set, just ahead of the first.
type armClock struct {
	*ManualClock
	armed  chan struct{}
	before func() // used by the driver's goroutine only
}

// After runs before once, then arms the wait and reports it.
func (a *armClock) After(d time.Duration) <-chan time.Time {
	if f := a.before; f != nil {
		a.before = nil
		f()
	}
	ch := a.ManualClock.After(d)
	a.armed <- struct{}{}
	return ch
}

// TestSlotDriverSyncsEveryAdvance moves the clock before the slot driver
// first runs, or while it arms its wait, and expects the driver to bring
// the chain up to the clock by itself: nothing else calls the chain, as
// when a client only waits for its notifications.
func TestSlotDriverSyncsEveryAdvance(t *testing.T) {
	for _, tc := range []struct {
		name  string
		waits int // the waits armed once the driver has synced
		early bool
	}{{"before it runs", 1, true}, {"while it arms its wait", 2, false}} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &armClock{ManualClock: NewManualClock(epoch), armed: make(chan struct{}, 4)}
			c, err := New(Options{Clock: clk})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if tc.early {
				advanceSlots(clk.ManualClock, 3)
			} else {
				clk.before = func() { advanceSlots(clk.ManualClock, 3) }
			}
			stop, done := make(chan struct{}), make(chan struct{})
			go c.rpc.ws.tick(stop, done)
			defer func() {
				close(stop)
				<-done
			}()
			ctx := recvCtx(t)
			for range tc.waits {
				select {
				case <-clk.armed:
				case <-ctx.Done():
					t.Fatal("the slot driver armed no further wait: it missed the advance")
				}
			}
			c.mu.Lock() // not c.lock, which would sync the chain itself
			seen := c.Ledger.seen
			c.mu.Unlock()
			if seen != 3 {
				t.Fatalf("the chain is at slot %d after the driver armed its wait, want 3", seen)
			}
		})
	}
}
