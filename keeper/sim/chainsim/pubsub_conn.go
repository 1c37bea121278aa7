package chainsim

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
)

// WSQueueLimit is how many messages may wait to be written to one
// websocket connection. A client that falls further behind is dropped:
// its connection is closed and its subscriptions end, so a slow client
// never holds up the chain (a validator drops a lagging pubsub client too).
const WSQueueLimit = 4096

// wsWriteWait bounds the writing of one message, in real time.
const wsWriteWait = 10 * time.Second

// wsConn is one pubsub websocket connection. Messages are queued by send,
// which never blocks, and written by the connection's writer goroutine.
type wsConn struct {
	ws        *websocket.Conn
	dropAfter int // the connection closes after this many notifications; 0 never

	mu     sync.Mutex
	queue  []wsMessage // guarded by mu
	noted  int         // guarded by mu; notifications queued so far
	dead   bool        // guarded by mu
	wake   chan struct{}
	done   chan struct{} // closed by kill
	killed sync.Once

	subs map[uint64]bool // guarded by the chain's mu; this connection's subscriptions
}

// wsMessage is one queued message.
type wsMessage struct {
	body []byte
	note bool // a notification, counted for the drop-after fault
	// writing, when set, is called as the message's write starts.
	writing func()
}

// newWSConn wraps an upgraded connection.
func newWSConn(ws *websocket.Conn, dropAfter int) *wsConn {
	return &wsConn{ws: ws, dropAfter: dropAfter, wake: make(chan struct{}, 1), done: make(chan struct{}), subs: map[uint64]bool{}}
}

// send queues a message without blocking and reports whether the
// connection takes it. A full queue kills the connection.
func (wc *wsConn) send(m wsMessage) bool {
	ok, overflow := wc.enqueue(m)
	if overflow {
		wc.kill()
	}
	return ok
}

// enqueue adds m to the queue, reporting whether it did and whether the
// queue overflowed.
func (wc *wsConn) enqueue(m wsMessage) (ok, overflow bool) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.dead || m.note && wc.dropAfter > 0 && wc.noted >= wc.dropAfter {
		return false, false
	}
	if len(wc.queue) >= WSQueueLimit {
		wc.dead = true
		return false, true
	}
	if m.note {
		wc.noted++
	}
	wc.queue = append(wc.queue, m)
	select {
	case wc.wake <- struct{}{}:
	default:
	}
	return true, false
}

// notify queues a notification of subscription id.
func (wc *wsConn) notify(method string, id uint64, result any) bool {
	return wc.notifyThen(method, id, result, nil)
}

// notifyThen is notify, calling writing (when not nil) as the
// notification's write to the connection starts.
func (wc *wsConn) notifyThen(method string, id uint64, result any, writing func()) bool {
	body, err := json.Marshal(notification{JSONRPC: "2.0", Method: method, Params: notificationParams{Result: result, Subscription: id}})
	if err != nil {
		return false
	}
	return wc.send(wsMessage{body: body, note: true, writing: writing})
}

// reply queues the answer to a request.
func (wc *wsConn) reply(id json.RawMessage, result any, rerr *jsonrpc.Error) {
	wc.send(wsMessage{body: jsonrpc.EncodeResponse(id, result, rerr)})
}

// forget drops a subscription from the connection's list. The caller holds
// the chain's mu.
func (wc *wsConn) forget(id uint64) { delete(wc.subs, id) }

// kill closes the connection; its reader and writer then end.
func (wc *wsConn) kill() {
	wc.killed.Do(func() {
		wc.mu.Lock()
		wc.dead = true
		wc.mu.Unlock()
		close(wc.done)
		_ = wc.ws.Close()
	})
}

// writeLoop writes queued messages until the connection dies, and closes
// it after the drop-after fault's last notification.
func (wc *wsConn) writeLoop() {
	written := 0
	for {
		select {
		case <-wc.done:
			return
		case <-wc.wake:
		}
		wc.mu.Lock()
		batch := wc.queue
		wc.queue = nil
		wc.mu.Unlock()
		for _, m := range batch {
			_ = wc.ws.SetWriteDeadline(time.Now().Add(wsWriteWait))
			if m.writing != nil {
				m.writing()
			}
			if err := wc.ws.WriteMessage(websocket.TextMessage, m.body); err != nil {
				wc.kill()
				return
			}
			if m.note {
				written++
			}
			if wc.dropAfter > 0 && written >= wc.dropAfter {
				wc.kill()
				return
			}
		}
	}
}

// notification is a pubsub notification.
type notification struct {
	JSONRPC string             `json:"jsonrpc"`
	Method  string             `json:"method"`
	Params  notificationParams `json:"params"`
}

// notificationParams are the params of a notification.
type notificationParams struct {
	Result       any    `json:"result"`
	Subscription uint64 `json:"subscription"`
}
