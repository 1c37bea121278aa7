package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Addrs are the listen addresses of the three services. An empty address means "127.0.0.1:0" (a free
// port); an address without a host (":7070") listens on 127.0.0.1 only.
type Addrs struct {
	Market, RPC, Jito string
}

// URLs are the base URLs of the three services. Market ends in /v1.
type URLs struct {
	Market, RPC, Jito string
}

// server is one running HTTP server.
type server struct {
	srv  *http.Server
	done chan error // receives Serve's result once
}

// Start serves the market, the RPC and the Jito engine on their addresses until ctx ends, and returns
// their URLs once all three listen. Wait reports how serving ended.
func (s *Sim) Start(ctx context.Context, a Addrs) (URLs, error) {
	var lc net.ListenConfig
	handlers := []http.Handler{s.MarketHandler(), s.RPCHandler(), s.JitoHandler()}
	var lns []net.Listener
	for _, addr := range []string{a.Market, a.RPC, a.Jito} {
		ln, err := lc.Listen(ctx, "tcp", localAddr(addr))
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return URLs{}, fmt.Errorf("sim: listen on %q: %w", addr, err)
		}
		lns = append(lns, ln)
	}
	for i, ln := range lns {
		s.serve(ctx, ln, handlers[i])
	}
	s.runEventsOnTheClock(ctx)
	base := func(ln net.Listener) string { return "http://" + ln.Addr().String() }
	return URLs{Market: base(lns[0]) + "/v1", RPC: base(lns[1]), Jito: base(lns[2])}, nil
}

// localAddr turns an empty address or a bare port into a loopback address.
func localAddr(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	host, port, err := net.SplitHostPort(addr)
	if err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// serve runs one server on ln until ctx ends; closing it also ends hanging (timeout-fault) requests.
func (s *Sim) serve(ctx context.Context, ln net.Listener, h http.Handler) {
	// Requests' contexts derive from ctx, so websocket connections, which the server does not track
	// once upgraded, end with it too.
	sv := &server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}, done: make(chan error, 1)}
	s.serveMu.Lock()
	s.servers = append(s.servers, sv)
	s.serveMu.Unlock()
	stopped := make(chan struct{})
	go func() {
		err := sv.srv.Serve(ln)
		close(stopped)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		sv.done <- err
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = sv.srv.Close()
		case <-stopped:
		}
	}()
}

// Wait blocks until every server Start began has stopped (after its context ended) and returns
// their serving errors, if any.
func (s *Sim) Wait() error {
	s.serveMu.Lock()
	servers := s.servers
	s.servers = nil
	s.serveMu.Unlock()
	var errs []error
	for _, sv := range servers {
		errs = append(errs, <-sv.done)
	}
	return errors.Join(errs...)
}
