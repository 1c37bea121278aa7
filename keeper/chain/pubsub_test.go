package chain_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/keeper-project/keeper/keeper/chain"
)

// fakeNode is a pubsub server that answers each subscribe with the next
// subscription id, or with error when it is set, and then sends burst
// notifications of it at once.
type fakeNode struct {
	error string
	burst int
}

func (f fakeNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	for sub := uint64(7); ; sub++ {
		var req struct {
			ID     uint64 `json:"id"`
			Method string `json:"method"`
		}
		if err := conn.ReadJSON(&req); err != nil {
			return
		}
		if !strings.HasSuffix(req.Method, "Subscribe") {
			continue
		}
		if f.error != "" {
			_ = conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32602, "message": f.error}})
			continue
		}
		_ = conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": sub})
		for i := range f.burst {
			_ = conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "method": "slotNotification",
				"params": map[string]any{"subscription": sub, "result": map[string]any{"slot": i}}})
		}
	}
}

func dialFake(t testing.TB, f fakeNode) *chain.PubSub {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p, err := chain.DialPubSub(t.Context(), "ws"+strings.TrimPrefix(srv.URL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestPubSubDeliversInOrder: the notifications the node sends right after
// its answer reach the subscription, in order (none is lost between the
// answer and the subscription's registration).
func TestPubSubDeliversInOrder(t *testing.T) {
	p := dialFake(t, fakeNode{burst: 100})
	sub, err := p.Subscribe(t.Context(), "slotSubscribe", []any{}, "slotUnsubscribe")
	if err != nil {
		t.Fatal(err)
	}
	for want := range 100 {
		raw, err := sub.Next(t.Context())
		if err != nil {
			t.Fatalf("notification %d: %v", want, err)
		}
		var n struct{ Slot int }
		if err := json.Unmarshal(raw, &n); err != nil || n.Slot != want {
			t.Fatalf("notification %d is %s", want, raw)
		}
	}
}

// TestPubSubEndsWhenAReaderFallsBehind: a subscription nobody reads fills
// its queue, and the connection ends saying so, rather than skipping
// notifications silently or holding them without bound.
func TestPubSubEndsWhenAReaderFallsBehind(t *testing.T) {
	p := dialFake(t, fakeNode{burst: 1000})
	if _, err := p.Subscribe(t.Context(), "slotSubscribe", []any{}, "slotUnsubscribe"); err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "fell 256 notifications behind") {
		t.Fatalf("connection ended with %v, want the reader fell behind", err)
	}
}

// TestPubSubNodeError: a subscribe the node refuses returns its error.
func TestPubSubNodeError(t *testing.T) {
	p := dialFake(t, fakeNode{error: "Invalid params"})
	_, err := p.Subscribe(t.Context(), "accountSubscribe", []any{"x"}, "accountUnsubscribe")
	if err == nil || !strings.Contains(err.Error(), "accountSubscribe: node error -32602: Invalid params") {
		t.Fatalf("Subscribe: %v, want the node's error", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Subscribe(ctx, "slotSubscribe", []any{}, "slotUnsubscribe"); err == nil {
		t.Error("a subscribe with an ended context succeeded")
	}
}

// BenchmarkPubSubSubscribe measures what one subscription costs (solana-go's
// client allocated about 4.8 MB of channel buffers per subscription).
func BenchmarkPubSubSubscribe(b *testing.B) {
	p := dialFake(b, fakeNode{})
	b.ReportAllocs()
	for b.Loop() {
		sub, err := p.Subscribe(b.Context(), "slotSubscribe", []any{}, "slotUnsubscribe")
		if err != nil {
			b.Fatal(err)
		}
		sub.Unsubscribe()
	}
}
