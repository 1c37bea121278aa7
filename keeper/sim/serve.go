package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
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

// StartControlled is Start with c's control routes served on the market's address under
// ControlPrefix, and the RPC and Jito requests counted for AdvanceRequest.AfterTraffic. c must be a
// Control of s.
func (s *Sim) StartControlled(ctx context.Context, a Addrs, c *Control) (URLs, error) {
	if c == nil || c.sim != s {
		return URLs{}, errors.New("sim: start controlled: the control belongs to another simulator")
	}
	handlers := []http.Handler{withControl(c.CountMarket(s.MarketHandler()), c.Handler()),
		c.CountTraffic(s.RPCHandler()), c.CountTraffic(s.JitoHandler())}
	lns, err := listenAll(ctx, []string{a.Market, a.RPC, a.Jito})
	if err != nil {
		return URLs{}, err
	}
	for i, ln := range lns {
		s.serve(ctx, ln, handlers[i])
	}
	s.runEventsOnTheClock(ctx)
	base := func(ln net.Listener) string { return "http://" + ln.Addr().String() }
	return URLs{Market: base(lns[0]) + "/v1", RPC: base(lns[1]), Jito: base(lns[2])}, nil
}

// Control returns the base URL of the control routes (ending in ControlPrefix) when the simulator
// was started with StartControlled.
func (u URLs) Control() string {
	return strings.TrimSuffix(u.Market, "/v1") + ControlPrefix
}

// withControl sends ControlPrefix paths to control and everything else to market.
func withControl(market, control http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, ControlPrefix) {
			control.ServeHTTP(w, r)
			return
		}
		market.ServeHTTP(w, r)
	})
}

// listenAll listens on every address (loopback for an empty or host-less one), closing what it opened
// when one fails.
func listenAll(ctx context.Context, addrs []string) ([]net.Listener, error) {
	var lc net.ListenConfig
	var lns []net.Listener
	for _, addr := range addrs {
		ln, err := lc.Listen(ctx, "tcp", localAddr(addr))
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, fmt.Errorf("sim: listen on %q: %w", addr, err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// runEventsOnTheClock runs, on a clock that moves by itself, the scenario
// events that fell due and the Pyth pushes that are due, once a slot, until
// ctx ends: a real chain and market change whether anyone asks or not, and
// a client that only listens (a websocket subscriber) must see them. Every
// request still runs them first, so a request never sees a stale world; a
// manual clock runs them when it is advanced (a second runner would race
// Advance for the events it reports).
func (s *Sim) runEventsOnTheClock(ctx context.Context) {
	if _, manual := s.clock.(*chainsim.ManualClock); manual {
		return
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.clock.After(chainsim.SlotDuration):
			}
			if _, err := s.RunDue(); err != nil {
				s.log.Warn("Scenario event failed", "err", err)
			}
		}
	}()
}
