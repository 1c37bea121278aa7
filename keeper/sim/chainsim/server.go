package chainsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/internal/servertiming"
)

// maxRequestBody bounds a request body.
const maxRequestBody = 1 << 20

// Server is one of the chain's HTTP services: Solana JSON-RPC or the Jito
// block engine. It applies the chain's faults for its service.
type Server struct {
	c      *Chain
	svc    Service
	routes map[string]map[string]methodFunc // path → method → implementation; "" matches any path
	ws     *pubsubAPI                       // the RPC service's websocket endpoint; nil for Jito
	limits *clientLimits                    // requests per client IP; nil: no limit
}

// clientLimits limits the requests of each client IP address to a rate,
// with a bucket of one (Options.JitoRateLimit). It is safe for concurrent
// use.
type clientLimits struct {
	rate    rate.Limit
	mu      sync.Mutex
	buckets map[string]*rate.Limiter // guarded by mu; by client IP
}

// allow reports whether the client of r may make a request now, and takes
// its token if so.
func (l *clientLimits) allow(r *http.Request) bool {
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	l.mu.Lock()
	b, ok := l.buckets[ip]
	if !ok {
		b = rate.NewLimiter(l.rate, 1)
		l.buckets[ip] = b
	}
	l.mu.Unlock()
	return b.Allow()
}

// newServer returns the server of svc.
func newServer(c *Chain, svc Service) *Server {
	s := &Server{c: c, svc: svc}
	if svc == ServiceJito {
		s.routes = jitoRoutes(c)
	} else {
		s.routes = map[string]map[string]methodFunc{"": rpcMethods(c)}
		s.ws = newPubsubAPI(c)
	}
	return s
}

// Handler returns the server's HTTP handler. The RPC service answers POST
// on any path; the Jito service answers POST /api/v1/bundles (bundle
// methods) and /api/v1/transactions (sendTransaction), and GET
// /api/v1/bundles/tip_floor.
func (s *Server) Handler() http.Handler { return s }

// Serve serves HTTP on ln until ctx ends, then shuts down (ending hanging
// requests) and returns nil; any other serving error is returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}

// ServeHTTP answers one JSON-RPC request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.svc == ServiceRPC && websocket.IsWebSocketUpgrade(r) {
		s.ws.serve(w, r)
		return
	}
	if s.svc == ServiceJito && r.URL.Path == TipFloorPath {
		s.serveTipFloor(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "chainsim: only POST is supported", http.StatusMethodNotAllowed)
		return
	}
	if s.limits != nil && !s.limits.allow(r) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Too Many Requests: rate limit of the block engine exceeded", http.StatusTooManyRequests)
		return
	}
	table, ok := s.routes[r.URL.Path]
	if !ok {
		if table, ok = s.routes[""]; !ok {
			http.NotFound(w, r)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		http.Error(w, "chainsim: request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	req, fn, rerr := parseRequest(body, table)
	if rerr != nil {
		writeJSON(w, jsonrpc.EncodeResponse(req.ID, nil, rerr), false)
		return
	}
	s.serveCall(w, r, req, fn)
}

// parseRequest decodes a request and finds its method.
func parseRequest(body []byte, table map[string]methodFunc) (jsonrpc.Request, methodFunc, *jsonrpc.Error) {
	var req jsonrpc.Request
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		return req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request: batch requests are not supported by chainsim"}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error"}
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request"}
	}
	fn, ok := table[req.Method]
	if !ok {
		return req, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
	}
	return req, fn, nil
}

// serveCall applies the drawn fault and runs the method. The answer's
// Server-Timing header tells how long the method ran (the injected latency
// and the request's reading excluded) and how long the injected latency held
// it back.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, req jsonrpc.Request, fn methodFunc) {
	ctx := r.Context()
	faults := s.c.faults.engine(s.svc)
	fault, delay := faults.Draw(req.Method)
	var waited time.Duration
	if delay > 0 {
		start := time.Now()
		select {
		case <-s.c.Ledger.clock.After(delay):
		case <-ctx.Done():
			return
		}
		waited = time.Since(start)
	}
	switch fault {
	case inject.FaultServerError:
		http.Error(w, "chainsim: injected server error", faults.ServerErrorStatus())
		return
	case inject.FaultRateLimit:
		w.Header().Set("Retry-After", strconv.FormatInt(faults.RetryAfterSeconds(), 10))
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		return
	case inject.FaultTimeout:
		<-ctx.Done()
		return
	case inject.FaultStall:
		s.c.Ledger.Stall(s.c.faults.stallSlots())
	}
	start := time.Now()
	params, rerr := jsonrpc.SplitParams(req.Params)
	var result any
	if rerr == nil {
		result, rerr = fn(jsonrpc.Call{Params: params, NeverLand: fault == inject.FaultNeverLand, Lag: faults.Lag(req.Method)})
	}
	servertiming.Set(w.Header(), servertiming.Timing{Name: req.Method, Work: time.Since(start), Latency: waited})
	writeJSON(w, jsonrpc.EncodeResponse(req.ID, result, rerr), fault == inject.FaultTruncate)
}

// writeJSON writes a JSON body; truncated sends only its first half after
// announcing the full length, like a connection cut mid-response.
func writeJSON(w http.ResponseWriter, body []byte, truncated bool) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if truncated {
		body = body[:len(body)/2]
	}
	_, _ = w.Write(body)
}
