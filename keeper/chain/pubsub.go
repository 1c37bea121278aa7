package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/keeper-project/keeper/internal/redact"
)

// PubSub is one connection to a Solana RPC node's pubsub websocket: it
// subscribes (accountSubscribe, slotSubscribe, signatureSubscribe, ...) and
// hands each subscription's notifications to it. solana-go's client
// allocates some 4.8 MB of channel buffers per subscription, which a
// watcher holding subscriptions for days fills, and a confirmation per
// transaction allocates anew; this one keeps a small queue per
// subscription and drops the connection (every subscription ends with the
// reason) when a reader falls that far behind. It reads a message of at most
// maxPubSubMessage bytes, and one beyond smallPubSubMessage only while it
// holds the process's one large-message slot (see readMessage): a node that
// floods it with large notifications costs one of them in memory at a time.
type PubSub struct {
	conn    *websocket.Conn
	secrets redact.Secrets // the URL's, scrubbed from errors

	writeMu sync.Mutex // one writer at a time, as gorilla/websocket requires

	mu      sync.Mutex
	nextID  uint64
	waiting map[uint64]*pending // subscribe requests by request id
	subs    map[uint64]*Subscription
	err     error // why the connection ended; set once
	done    chan struct{}
}

// Subscription is one subscription of a PubSub. Next returns its
// notifications in order.
type Subscription struct {
	p     *PubSub
	id    uint64
	unsub string
	queue chan notification

	mu   sync.Mutex
	held func() // releases the notification Next returned last
}

// notification is a queued notification's result and what gives back the
// large-message slot it holds (a no-op for a small one).
type notification struct {
	result  json.RawMessage
	release func()
}

// pending is a subscribe request waiting for its answer.
type pending struct {
	method, unsub string
	answer        chan reply
}

// reply is a subscribe request's answer: its subscription, or why not.
type reply struct {
	sub *Subscription
	err error
}

// pubsubQueue is how many notifications a subscription holds for a reader
// that has not taken them.
const pubsubQueue = 256

// pubsubPing is how often the connection is pinged; a connection that
// answers neither a ping nor anything else for pubsubDead is closed.
const (
	pubsubPing = 20 * time.Second
	pubsubDead = time.Minute
)

// DialPubSub connects to the websocket endpoint url (ws:// or wss://). Its
// errors never quote the URL's secret parts.
func DialPubSub(ctx context.Context, url string) (*PubSub, error) {
	conn, resp, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("%s: %w", resp.Status, err)
		}
		return nil, redact.Of(url).Error(err)
	}
	conn.SetReadLimit(maxPubSubMessage)
	p := &PubSub{conn: conn, secrets: redact.Of(url), waiting: map[uint64]*pending{}, subs: map[uint64]*Subscription{},
		done: make(chan struct{})}
	go p.read()
	go p.ping()
	return p, nil
}

// Close ends the connection and every subscription.
func (p *PubSub) Close() { p.fail(errors.New("pubsub: closed")) }

// Done is closed when the connection has ended; Err then says why.
func (p *PubSub) Done() <-chan struct{} { return p.done }

// Err is why the connection ended, or nil while it serves.
func (p *PubSub) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Subscribe sends method with params and waits for the subscription's id;
// unsubscribe is the method that ends it (accountUnsubscribe, ...).
func (p *PubSub) Subscribe(ctx context.Context, method string, params []any, unsubscribe string) (*Subscription, error) {
	p.mu.Lock()
	if p.err != nil {
		defer p.mu.Unlock()
		return nil, p.err
	}
	p.nextID++
	id := p.nextID
	w := &pending{method: method, unsub: unsubscribe, answer: make(chan reply, 1)}
	p.waiting[id] = w
	p.mu.Unlock()
	if err := p.send(id, method, params); err != nil {
		return nil, err
	}
	select {
	case r := <-w.answer:
		return r.sub, r.err
	case <-p.done:
		return nil, p.Err()
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.waiting, id)
		p.mu.Unlock()
		select {
		case r := <-w.answer: // answered meanwhile: nobody will read it
			if r.sub != nil {
				r.sub.Unsubscribe()
			}
		default:
		}
		return nil, ctx.Err()
	}
}

// Next returns the subscription's next notification's result, waiting for
// it; an error when the connection ended (why) or ctx did. The result is
// the caller's until it calls Next again or Unsubscribe: a large one holds
// the process's large-message slot until then.
func (s *Subscription) Next(ctx context.Context) (json.RawMessage, error) {
	s.release()
	select {
	case n := <-s.queue:
		return s.hold(n), nil
	default:
	}
	select {
	case n := <-s.queue:
		return s.hold(n), nil
	case <-s.p.done:
		return nil, s.p.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hold keeps n's release for the next call of Next or Unsubscribe.
func (s *Subscription) hold(n notification) json.RawMessage {
	s.mu.Lock()
	s.held = n.release
	s.mu.Unlock()
	return n.result
}

// release gives back what the notification Next returned last holds.
func (s *Subscription) release() {
	s.mu.Lock()
	held := s.held
	s.held = nil
	s.mu.Unlock()
	if held != nil {
		held()
	}
}

// drain releases every queued notification.
func (s *Subscription) drain() {
	for {
		select {
		case n := <-s.queue:
			n.release()
		default:
			return
		}
	}
}

// Unsubscribe ends the subscription (best effort: the answer is not waited
// for).
func (s *Subscription) Unsubscribe() {
	p := s.p
	p.mu.Lock()
	_, ok := p.subs[s.id]
	delete(p.subs, s.id)
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	s.release()
	s.drain()
	if ok {
		_ = p.send(id, s.unsub, []any{s.id})
	}
}

// send writes one request.
func (p *PubSub) send(id uint64, method string, params []any) error {
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("pubsub: %s: %w", method, err)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_ = p.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := p.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
		err = p.secrets.Error(fmt.Errorf("pubsub: sending %s: %w", method, err))
		p.fail(err)
		return err
	}
	return nil
}

// message is any message of the node: an answer (ID set) or a notification.
type message struct {
	ID     *uint64         `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
	Params struct {
		Subscription uint64          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
	} `json:"params"`
}

// read dispatches the node's messages until the connection ends.
func (p *PubSub) read() {
	_ = p.conn.SetReadDeadline(time.Now().Add(pubsubDead))
	p.conn.SetPongHandler(func(string) error { return p.conn.SetReadDeadline(time.Now().Add(pubsubDead)) })
	for {
		data, release, err := p.next()
		if err != nil {
			p.fail(err)
			return
		}
		_ = p.conn.SetReadDeadline(time.Now().Add(pubsubDead))
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			release()
			continue // not JSON-RPC: nothing to route it to
		}
		if m.ID != nil {
			release()
			p.answer(*m.ID, m)
			continue
		}
		p.notify(m.Params.Subscription, notification{result: m.Params.Result, release: release})
	}
}

// next reads the next message (see readMessage). A message over
// maxPubSubMessage is ErrMessageTooLarge, counted.
func (p *PubSub) next() ([]byte, func(), error) {
	_, r, err := p.conn.NextReader()
	if err == nil {
		var data []byte
		var release func()
		if data, release, err = readMessage(r, largeMessage, p.done); err == nil {
			return data, release, nil
		}
	}
	if errors.Is(err, websocket.ErrReadLimit) {
		oversized.Add(1)
		return nil, nil, ErrMessageTooLarge
	}
	return nil, nil, p.secrets.Error(fmt.Errorf("pubsub: connection lost: %w", err))
}

// answer hands a subscribe request's answer to its waiting Subscribe,
// registering the subscription first: the node may notify right after it
// answers, and this goroutine reads that notification next.
func (p *PubSub) answer(id uint64, m message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.waiting[id]
	delete(p.waiting, id)
	if !ok {
		return // an unsubscribe's answer, or a request given up
	}
	var subID uint64
	switch {
	case m.Error != nil:
		w.answer <- reply{err: fmt.Errorf("pubsub: %s: node error %d: %s", w.method, m.Error.Code, m.Error.Message)}
	case json.Unmarshal(m.Result, &subID) != nil:
		w.answer <- reply{err: fmt.Errorf("pubsub: %s: the node answered %.100s, not a subscription id", w.method, m.Result)}
	default:
		s := &Subscription{p: p, id: subID, unsub: w.unsub, queue: make(chan notification, pubsubQueue)}
		p.subs[subID] = s
		w.answer <- reply{sub: s}
	}
}

// notify queues a notification for its subscription; a subscription whose
// reader fell pubsubQueue notifications behind ends the connection, so
// that no change is silently skipped.
func (p *PubSub) notify(subID uint64, n notification) {
	p.mu.Lock()
	s := p.subs[subID]
	p.mu.Unlock()
	if s == nil {
		n.release()
		return // a notification of a subscription just ended
	}
	select {
	case s.queue <- n:
		select {
		case <-p.done: // ended meanwhile (Close): nobody may come for it
			s.drain()
		default:
		}
	default:
		n.release()
		p.fail(fmt.Errorf("pubsub: a reader fell %d notifications behind", pubsubQueue))
	}
}

// ping keeps the connection alive and finds a dead one.
func (p *PubSub) ping() {
	t := time.NewTicker(pubsubPing)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.writeMu.Lock()
			err := p.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second))
			p.writeMu.Unlock()
			if err != nil {
				p.fail(p.secrets.Error(fmt.Errorf("pubsub: ping: %w", err)))
				return
			}
		}
	}
}

// fail ends the connection with err, once.
func (p *PubSub) fail(err error) {
	p.mu.Lock()
	if p.err != nil {
		p.mu.Unlock()
		return
	}
	p.err = err
	close(p.done)
	subs := slices.Collect(maps.Values(p.subs))
	p.mu.Unlock()
	_ = p.conn.Close()
	for _, s := range subs {
		s.release() // the connection is over: what its reader still holds counts no more
		s.drain()
	}
}
