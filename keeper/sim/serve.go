package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
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

// Control returns the base URL of the control routes (ending in ControlPrefix) when the simulator
// was started with StartControlled.
func (u URLs) Control() string {
	return strings.TrimSuffix(u.Market, "/v1") + ControlPrefix
}

// servers are the HTTP servers a simulator started, until Wait collects them.
type servers struct {
	mu   sync.Mutex
	list []*server // guarded by mu
}

// server is one running HTTP server.
type server struct {
	srv  *http.Server
	done chan error // receives Serve's result once
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
func (ss *servers) serve(ctx context.Context, ln net.Listener, h http.Handler) {
	// Requests' contexts derive from ctx, so websocket connections, which the server does not track
	// once upgraded, end with it too.
	sv := &server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}, done: make(chan error, 1)}
	ss.mu.Lock()
	ss.list = append(ss.list, sv)
	ss.mu.Unlock()
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

// wait blocks until every server serve began has stopped and returns their serving errors, if any.
func (ss *servers) wait() error {
	ss.mu.Lock()
	list := ss.list
	ss.list = nil
	ss.mu.Unlock()
	var errs []error
	for _, sv := range list {
		errs = append(errs, <-sv.done)
	}
	return errors.Join(errs...)
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
