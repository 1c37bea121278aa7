package chainsim

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// upgrader accepts websocket upgrades from any origin: the simulator serves
// local tools and tests, as a node's pubsub port does.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveWS upgrades r to a pubsub websocket connection and serves it until
// the client leaves, the connection dies or r's context ends (the server
// stopping). The connection's subscriptions end with it.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	c := s.c
	pf := c.faults.pubsub()
	if pf.RefuseUpgrade {
		http.Error(w, "chainsim: injected fault: websocket upgrades refused", http.StatusServiceUnavailable)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	ws.SetReadLimit(maxRequestBody)
	wc := newWSConn(ws, pf.DropAfter)
	c.attach(wc)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		wc.writeLoop()
	}()
	stop := context.AfterFunc(r.Context(), wc.kill)
	defer func() {
		stop()
		wc.kill()
		<-writerDone
		c.detach(wc)
	}()
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		s.handlePubsub(wc, msg)
	}
}

// attach registers a connection and starts the slot driver with the first.
func (c *Chain) attach(wc *wsConn) {
	c.lock()
	defer c.unlock()
	h := c.pubsub
	h.conns[wc] = true
	if h.stopTick == nil {
		h.stopTick, h.tickDone = make(chan struct{}), make(chan struct{})
		go c.tick(h.stopTick, h.tickDone)
	}
}

// detach ends a closed connection's subscriptions and stops the slot
// driver with the last connection, waiting for it to end.
func (c *Chain) detach(wc *wsConn) {
	c.lock()
	h := c.pubsub
	for id := range wc.subs {
		c.removeSubLocked(id)
	}
	clear(wc.subs)
	delete(h.conns, wc)
	var done chan struct{}
	if len(h.conns) == 0 && h.stopTick != nil {
		close(h.stopTick)
		done = h.tickDone
		h.stopTick, h.tickDone = nil, nil
	}
	c.unlock()
	if done != nil {
		<-done
	}
}

// tick brings the chain up to its clock at the start of every slot while
// websocket clients are connected, so their notifications go out as slots
// pass even when nobody calls the chain. On a ManualClock it wakes when the
// clock is advanced past a slot boundary. Each wait runs to the end of the
// slot the chain last synced, not of the slot the clock was in when the
// driver got to run, and the clock is read again once the wait is armed: an
// advance made before the driver first ran, or while it armed its wait, is
// synced at once rather than at the next advance.
func (c *Chain) tick(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		c.lock()
		seen := c.seen
		c.unlock()
		next := c.genesis.Add(SlotDuration * time.Duration(seen+1))
		wait := c.clock.After(next.Sub(c.clock.Now()))
		if c.clockSlot() > seen {
			continue // the clock passed the slot while the wait was armed
		}
		select {
		case <-stop:
			return
		case <-wait:
		}
	}
}
