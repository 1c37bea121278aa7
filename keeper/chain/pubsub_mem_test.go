package chain_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/keeper-project/keeper/keeper/chain"
)

// streamNode answers one subscribe and then sends count account
// notifications of size bytes of data each, as fast as the socket takes
// them; sent closes once the last is written.
type streamNode struct {
	count, size int
	sent        chan struct{}
}

func (f streamNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	var req struct {
		ID uint64 `json:"id"`
	}
	if err := conn.ReadJSON(&req); err != nil {
		return
	}
	_ = conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": 1})
	data := base64.StdEncoding.EncodeToString(make([]byte, f.size))
	for i := range f.count {
		msg := map[string]any{"jsonrpc": "2.0", "method": "accountNotification", "params": map[string]any{"subscription": 1,
			"result": map[string]any{"context": map[string]any{"slot": i}, "value": map[string]any{"data": []string{data, "base64"}}}}}
		if err := conn.WriteJSON(msg); err != nil {
			return
		}
	}
	close(f.sent)
	_, _, _ = conn.ReadMessage() // until the client goes
}

// BenchmarkPubSubLargeStream has a node send 200 notifications of a 1 MiB
// account each (1.4 MB messages) to a subscriber that takes the first and
// then falls behind (until the node sent them all, or for a second), and
// reports the heap in use then: what a node flooding keeper with large
// notifications costs it. It then reads the rest.
func BenchmarkPubSubLargeStream(b *testing.B) {
	const count, size = 200, 1 << 20
	var peak uint64
	for b.Loop() {
		node := streamNode{count: count, size: size, sent: make(chan struct{})}
		srv := httptest.NewServer(node)
		p, err := chain.DialPubSub(b.Context(), "ws"+strings.TrimPrefix(srv.URL, "http"))
		if err != nil {
			b.Fatal(err)
		}
		sub, err := p.Subscribe(b.Context(), "accountSubscribe", []any{"x"}, "accountUnsubscribe")
		if err != nil {
			b.Fatal(err)
		}
		var ms runtime.MemStats
		for i := range count {
			if _, err := sub.Next(b.Context()); err != nil {
				b.Fatalf("notification %d: %v", i, err)
			}
			if i == 0 {
				select {
				case <-node.sent:
				case <-time.After(time.Second): // the reader waits for the slot; the node cannot send on
				}
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		p.Close()
		srv.Close()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
