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

// pubsubAPI is the RPC service's websocket endpoint: it serves the pubsub
// connections and, while any is open, drives the chain from slot to slot.
// Its fields are guarded by the chain's mu.
type pubsubAPI struct {
	c        *Chain
	conns    map[*wsConn]bool // open connections
	stopTick chan struct{}    // ends the slot driver; nil while it is not running
	tickDone chan struct{}    // closed when the slot driver has ended
}

// newPubsubAPI returns the websocket endpoint of c.
func newPubsubAPI(c *Chain) *pubsubAPI {
	return &pubsubAPI{c: c, conns: map[*wsConn]bool{}}
}

// serve upgrades r to a pubsub websocket connection and serves it until
// the client leaves, the connection dies or r's context ends (the server
// stopping). The connection's subscriptions end with it.
func (p *pubsubAPI) serve(w http.ResponseWriter, r *http.Request) {
	c := p.c
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
	p.attach(wc)
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
		p.detach(wc)
	}()
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		p.handle(wc, msg)
	}
}

// attach registers a connection and starts the slot driver with the first.
func (p *pubsubAPI) attach(wc *wsConn) {
	p.c.lock()
	defer p.c.unlock()
	p.conns[wc] = true
	if p.stopTick == nil {
		p.stopTick, p.tickDone = make(chan struct{}), make(chan struct{})
		go p.tick(p.stopTick, p.tickDone)
	}
}

// detach ends a closed connection's subscriptions and stops the slot
// driver with the last connection, waiting for it to end.
func (p *pubsubAPI) detach(wc *wsConn) {
	p.c.lock()
	for id := range wc.subs {
		p.c.Pubsub.remove(id)
	}
	clear(wc.subs)
	delete(p.conns, wc)
	var done chan struct{}
	if len(p.conns) == 0 && p.stopTick != nil {
		close(p.stopTick)
		done = p.tickDone
		p.stopTick, p.tickDone = nil, nil
	}
	p.c.unlock()
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
func (p *pubsubAPI) tick(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	l := p.c.Ledger
	for {
		p.c.lock()
		seen := l.seen
		p.c.unlock()
		next := l.idx.genesis.Add(SlotDuration * time.Duration(seen+1))
		wait := l.clock.After(next.Sub(l.clock.Now()))
		if l.clockSlot() > seen {
			continue // the clock passed the slot while the wait was armed
		}
		select {
		case <-stop:
			return
		case <-wait:
		}
	}
}
