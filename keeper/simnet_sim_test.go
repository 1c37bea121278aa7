package keeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// netCall is one request simNet served.
type netCall struct {
	Host   string // host:port of the service
	Path   string // URL path
	Method string // JSON-RPC method, when the body names one
	Key    string // the Idempotent-Key header of a market build
	Status int    // the HTTP status answered
	Start  time.Time
	End    time.Time
}

// simNet is an in-process network: RoundTrip hands each request to the
// handler of its host and returns what the handler wrote. A handler that
// waits (injected latency, a hang) waits on the simulator's clock; when the
// request's context ends first, RoundTrip returns the context's error as a
// real transport would.
type simNet struct {
	hosts map[string]http.Handler
	// before, when set, sees every request before it is served (to inject
	// faults keyed on what is sent).
	before func(c netCall, body []byte)
	// now times the calls; time.Now unless a benchmark needs wall time.
	now func() time.Time

	mu    sync.Mutex
	calls []netCall // guarded by mu
}

// RoundTrip implements http.RoundTripper.
func (n *simNet) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("simnet: reading request body: %w", err)
		}
		body = b
	}
	h, ok := n.hosts[req.URL.Host]
	if !ok {
		return nil, fmt.Errorf("simnet: nothing serves %s", req.URL.Host)
	}
	c := netCall{Host: req.URL.Host, Path: req.URL.Path, Method: rpcMethod(body), Key: req.Header.Get("Idempotent-Key")}
	if n.before != nil {
		n.before(c, body)
	}
	sreq := req.Clone(req.Context())
	sreq.Body, sreq.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	sreq.RequestURI, sreq.RemoteAddr, sreq.Host = req.URL.RequestURI(), "127.0.0.1:50000", req.URL.Host
	rec := httptest.NewRecorder()
	c.Start = n.now()
	h.ServeHTTP(rec, sreq)
	c.End, c.Status = n.now(), rec.Code
	n.mu.Lock()
	n.calls = append(n.calls, c)
	n.mu.Unlock()
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// rpcMethod is the JSON-RPC method a request body names, or "".
func rpcMethod(body []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	return m.Method
}

// client is an HTTP client on n.
func (n *simNet) client() *http.Client { return &http.Client{Transport: n} }

// log returns the calls served so far.
func (n *simNet) log() []netCall {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.calls)
}

// count is how many calls to host asked for method ("" counts every call).
func (n *simNet) count(host, method string) int {
	c := 0
	for _, call := range n.log() {
		if call.Host == host && (method == "" || call.Method == method) {
			c++
		}
	}
	return c
}

// countPath is how many market calls went to a path ending in suffix.
func (n *simNet) countPath(suffix string) int {
	c := 0
	for _, call := range n.log() {
		if call.Host == simMarketHost && strings.HasSuffix(call.Path, suffix) {
			c++
		}
	}
	return c
}

// buildKeys are the Idempotent-Key headers of the market calls that carried
// one (the transaction builds), in order.
func (n *simNet) buildKeys() []string {
	var out []string
	for _, call := range n.log() {
		if call.Key != "" {
			out = append(out, call.Key)
		}
	}
	return out
}
