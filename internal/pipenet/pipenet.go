// Package pipenet is an in-memory network of net.Pipe connections for
// tests: servers listen on it by host name and HTTP clients dial it. Inside
// a testing/synctest bubble its connections block durably, as real sockets
// do not, so virtual time can pass while a request waits.
package pipenet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// ErrConnRefused is the error of a dial that no listener takes.
var ErrConnRefused = errors.New("connection refused")

// Network is a set of listeners by "host:port". The zero value is empty
// and ready to use.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*Listener
}

// Listen returns a new listener for addr ("host:port"), replacing any
// listener of that address.
func (n *Network) Listen(addr string) *Listener {
	l := NewListener(addr)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = map[string]*Listener{}
	}
	n.listeners[addr] = l
	return l
}

// DialContext connects to the listener of addr; an address nobody listens
// on is a refused connection. Its signature is http.Transport.DialContext's.
func (n *Network) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	n.mu.Lock()
	l, ok := n.listeners[addr]
	n.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: ErrConnRefused}
	}
	return l.DialContext(ctx, "pipe", addr)
}

// Client returns an HTTP client whose connections go through n.
func (n *Network) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.DialContext, MaxIdleConnsPerHost: 8}}
}

// Listener is a net.Listener whose connections are net.Pipe ends.
type Listener struct {
	addr  Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewListener returns a listener that reports addr as its address.
func NewListener(addr string) *Listener {
	return &Listener{addr: Addr(addr), conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.addr }

// DialContext connects a client to l; a closed listener refuses. Its
// signature is http.Transport.DialContext's.
func (l *Listener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: ErrConnRefused}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Addr is a listener's "host:port".
type Addr string

// Network is "pipe".
func (Addr) Network() string { return "pipe" }

func (a Addr) String() string { return string(a) }
