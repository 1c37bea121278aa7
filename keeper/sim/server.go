package sim

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/servertiming"
)

// maxBodyBytes bounds a market request body.
const maxBodyBytes = 1 << 20

// basePath is the version prefix of every market route.
const basePath = "/v1/"

// Header names of the market API.
const (
	headerRequestID   = "x-request-id"
	headerIdempotency = "Idempotent-Key"
	headerWallet      = apiwire.HeaderWallet
	headerPayer       = apiwire.HeaderPayer
)

// route is one market endpoint.
type route struct {
	endpoint string
	path     string // below /v1/
	write    bool
	handle   func(c *call) (any, error)
}

// call is one market request being served.
type call struct {
	body   []byte
	wallet solana.PublicKey // zero when the header is absent
	payer  solana.PublicKey // the wallet when the header is absent
}

// marketServer is the market's HTTP API: it routes a request to its endpoint under the market's lock,
// with the market faults drawn for it, and replays or refuses reused idempotency keys.
type marketServer struct {
	*world
	log      *slog.Logger
	onRoute  func(method, path string)
	routes   map[string]route
	idem     *apiwire.IdempotencyStore
	requests atomic.Uint64 // x-request-id counter
}

// handler returns the market API handler. Routes live under /v1/.
func (s *marketServer) handler() http.Handler { return http.HandlerFunc(s.serveMarket) }

// routeByEndpoint finds the route of an endpoint name.
func (s *marketServer) routeByEndpoint(name string) (route, bool) {
	for _, r := range s.routes {
		if r.endpoint == name {
			return r, true
		}
	}
	return route{}, false
}

// serveMarket answers one market request. An answer's Server-Timing header
// tells how long the endpoint ran (the injected latency excluded) and how
// long the injected latency held it back.
func (s *marketServer) serveMarket(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(headerRequestID, fmt.Sprintf("sim-%08x", s.requests.Add(1)))
	rt, ok := s.routes[strings.TrimPrefix(r.URL.Path, basePath)]
	switch {
	case !ok || !strings.HasPrefix(r.URL.Path, basePath):
		writeReply(w, apiwire.Reply{Status: http.StatusNotFound, Body: apiwire.EnvelopeJSON(http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)})
		s.unknownRoute(r)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		writeReply(w, apiwire.Reply{Status: http.StatusMethodNotAllowed, Body: apiwire.EnvelopeJSON(http.StatusMethodNotAllowed,
			"method "+r.Method+" not allowed on "+r.URL.Path+"; use POST")})
		s.unknownRoute(r)
		return
	}
	fault, delay := s.faults.Engine.Draw(rt.endpoint)
	var waited time.Duration
	if delay > 0 {
		start := time.Now()
		select {
		case <-s.clock.After(delay):
		case <-r.Context().Done():
			return
		}
		waited = time.Since(start)
	}
	if s.serveFault(w, r, fault) {
		return
	}
	start := time.Now()
	rep := s.answer(r, rt)
	servertiming.Set(w.Header(), servertiming.Timing{Name: rt.endpoint, Work: time.Since(start), Latency: waited})
	s.log.Debug("Market request", "endpoint", rt.endpoint, "status", rep.Status, "fault", fault.String())
	if fault == inject.FaultTruncate {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(rep.Body)))
		w.WriteHeader(rep.Status)
		_, _ = w.Write(rep.Body[:len(rep.Body)/2])
		return
	}
	writeReply(w, rep)
}

// unknownRoute calls the OnUnknownRoute hook.
func (s *marketServer) unknownRoute(r *http.Request) {
	s.log.Warn("Unknown market route", "method", r.Method, "path", r.URL.Path)
	if s.onRoute != nil {
		s.onRoute(r.Method, r.URL.Path)
	}
}

// serveFault answers a fault that replaces the call, reporting whether it did.
func (s *marketServer) serveFault(w http.ResponseWriter, r *http.Request, f inject.Fault) bool {
	switch f {
	case inject.FaultServerError:
		st := s.faults.Engine.ServerErrorStatus()
		writeReply(w, apiwire.Reply{Status: st, Body: apiwire.EnvelopeJSON(st, apiwire.GenericMessage)})
	case inject.FaultRateLimit:
		w.Header().Set("Retry-After", strconv.FormatInt(s.faults.Engine.RetryAfterSeconds(), 10))
		writeReply(w, apiwire.Reply{Status: http.StatusTooManyRequests, Body: apiwire.EnvelopeJSON(http.StatusTooManyRequests, "rate limit exceeded")})
	case inject.FaultTimeout:
		<-r.Context().Done()
	case inject.FaultNull:
		writeReply(w, apiwire.Reply{Status: http.StatusOK, Body: []byte("null")})
	case inject.FaultWrongShape:
		writeReply(w, apiwire.Reply{Status: http.StatusOK, Body: []byte(`"unexpected"`)})
	case inject.FaultOversize:
		writeOversize(w)
	case inject.FaultConflict:
		writeReply(w, apiwire.Reply{Status: http.StatusConflict, Body: apiwire.EnvelopeJSON(http.StatusConflict, "a request with this Idempotent-Key is being processed")})
	default:
		return false
	}
	return true
}

// writeReply writes a JSON answer.
func writeReply(w http.ResponseWriter, rep apiwire.Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.Status)
	_, _ = w.Write(rep.Body)
}

// answer reads, validates and serves the request under the market's lock, replaying or refusing
// reused idempotency keys.
func (s *marketServer) answer(r *http.Request, rt route) apiwire.Reply {
	c, err := s.readCall(r, rt)
	if err != nil {
		return errorReply(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := r.Header.Get(headerIdempotency)
	var fp [32]byte
	if rt.write && key != "" {
		fp = fingerprint(rt.endpoint, r, c.body)
		if rep, ok, err := s.idem.Lookup(key, fp); err != nil || ok {
			if err != nil {
				return errorReply(err)
			}
			return rep
		}
	}
	rep := s.run(rt, c)
	if rt.write && key != "" && rep.Status == http.StatusOK {
		s.idem.Store(key, fp, rep)
	}
	return rep
}

// run calls the endpoint and encodes its answer.
func (s *marketServer) run(rt route, c *call) apiwire.Reply {
	v, err := rt.handle(c)
	if err != nil {
		if _, ok := errors.AsType[*apiwire.Error](err); !ok {
			s.log.Error("Market endpoint failed", "endpoint", rt.endpoint, "err", err)
		}
		return errorReply(err)
	}
	body, err := apiwire.MarshalJSON(v)
	if err != nil {
		s.log.Error("Market response encoding failed", "endpoint", rt.endpoint, "err", err)
		return errorReply(err)
	}
	return apiwire.Reply{Status: http.StatusOK, Body: body}
}

// errorReply turns an error into the envelope: an *apiError keeps its status and message, anything
// else is a 500 with the generic message.
func errorReply(err error) apiwire.Reply {
	if e, ok := errors.AsType[*apiwire.Error](err); ok {
		return apiwire.Reply{Status: e.Status, Body: apiwire.EnvelopeJSON(e.Status, e.Msg)}
	}
	return apiwire.Reply{Status: http.StatusInternalServerError, Body: apiwire.EnvelopeJSON(http.StatusInternalServerError, apiwire.GenericMessage)}
}

// readCall reads the body and the headers of a request.
func (s *marketServer) readCall(r *http.Request, rt route) (*call, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, apiwire.BadRequest("content-type %q is not application/json", ct)
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, apiwire.BadRequest("reading the request body: %v", err)
	}
	if len(body) > maxBodyBytes {
		return nil, apiwire.BadRequest("request body larger than %d bytes", maxBodyBytes)
	}
	c := &call{body: body}
	if c.wallet, err = headerKey(r, headerWallet); err != nil {
		return nil, err
	}
	if c.payer, err = headerKey(r, headerPayer); err != nil {
		return nil, err
	}
	if rt.write && c.wallet.IsZero() {
		return nil, apiwire.BadRequest("the %s header is required on transaction-building calls", headerWallet)
	}
	if c.payer.IsZero() {
		c.payer = c.wallet
	}
	return c, nil
}

// headerKey parses an optional base58 key header.
func headerKey(r *http.Request, name string) (solana.PublicKey, error) {
	v := r.Header.Get(name)
	if v == "" {
		return solana.PublicKey{}, nil
	}
	k, err := solana.PublicKeyFromBase58(v)
	if err != nil {
		return k, apiwire.BadRequest("the %s header %q is not a base58 public key", name, v)
	}
	return k, nil
}

// fingerprint identifies a write for idempotency: endpoint, wallet and payer headers, and body.
func fingerprint(endpoint string, r *http.Request, body []byte) [32]byte {
	var b bytes.Buffer
	for _, part := range []string{endpoint, r.Header.Get(headerWallet), r.Header.Get(headerPayer)} {
		b.WriteString(part)
		b.WriteByte(0)
	}
	b.Write(body)
	return sha256.Sum256(b.Bytes())
}

// writeOversize streams a well-formed JSON answer of chainsim.OversizeBytes, an array of filler
// strings, without holding it in memory and without announcing its length (chunked), so that a
// client learns its size only by reading it.
func writeOversize(w http.ResponseWriter) {
	const chunk = 1 << 16
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	filler := make([]byte, chunk)
	for i := range filler {
		filler[i] = 'x'
	}
	filler[0], filler[chunk-1] = '"', '"'
	// The body is [ chunk , chunk , ... chunk ] padded with spaces to exactly OversizeBytes.
	written := 0
	write := func(p []byte) bool {
		n, err := w.Write(p)
		written += n
		return err == nil
	}
	if !write([]byte("[")) {
		return
	}
	for written+chunk+2 <= inject.OversizeBytes {
		if !write(filler) || !write([]byte(",")) {
			return
		}
	}
	pad := make([]byte, inject.OversizeBytes-written-len(`"x"]`))
	for i := range pad {
		pad[i] = ' '
	}
	_ = write(pad) && write([]byte(`"x"]`))
}
