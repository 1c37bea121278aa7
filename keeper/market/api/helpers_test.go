package api

import (
	"context"
	"errors"
	"github.com/keeper-project/keeper/keeper/market"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

const (
	testWallet = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
	testPayer  = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"
	testAuth   = "sk-live-0123456789abcdef"
)

// recorded is one request the fake API received.
type recorded struct {
	Method string
	Path   string
	Header http.Header
	Body   string
}

// reply is what the fake API answers.
type reply struct {
	Status int
	Header map[string]string
	Body   string
}

// fakeAPI records requests and answers each with respond(n, req), n counting from 0.
type fakeAPI struct {
	mu      sync.Mutex
	reqs    []recorded
	respond func(n int, r recorded) reply
}

// ServeHTTP records the request and writes the reply.
func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, rec)
	f.mu.Unlock()
	rep := f.respond(n, rec)
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status == 0 {
		rep.Status = http.StatusOK
	}
	w.WriteHeader(rep.Status)
	_, _ = io.WriteString(w, rep.Body)
}

// requests returns a copy of the recorded requests.
func (f *fakeAPI) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// mounted serves h under /v1 only, so any path that escapes the base URL gets a 404 from the mux.
func mounted(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.StripPrefix("/v1", h))
	return mux
}

// newServer starts an httptest server serving f under /v1 and returns a client for it. mutate may
// adjust the options before New.
func newServer(t *testing.T, f *fakeAPI, mutate func(*Options)) *Client {
	t.Helper()
	srv := httptest.NewServer(mounted(f))
	t.Cleanup(srv.Close)
	opts := Options{
		BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), Version: "1.2.3",
		AuthHeader: "x-api-key", AuthValue: testAuth, Wallet: testWallet, Payer: testPayer,
		Retry: RetryPolicy{MaxAttempts: 1},
	}
	if mutate != nil {
		mutate(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// handlerTransport runs an http.Handler in-process as a RoundTripper, so tests inside a synctest
// bubble need no sockets. When the request's context ends while the handler runs, it returns the
// context's error like a real transport.
type handlerTransport struct {
	h   http.Handler
	err func(n int) error // optional: a transport error to return for attempt n instead
	mu  sync.Mutex
	n   int
}

// RoundTrip serves req with the handler.
func (ht *handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ht.mu.Lock()
	n := ht.n
	ht.n++
	ht.mu.Unlock()
	if ht.err != nil {
		if err := ht.err(n); err != nil {
			return nil, err
		}
	}
	rec := httptest.NewRecorder()
	ht.h.ServeHTTP(rec, req)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// newInProcess returns a client whose requests reach f in-process under /v1.
func newInProcess(t *testing.T, f *fakeAPI, transportErr func(n int) error, mutate func(*Options)) *Client {
	t.Helper()
	opts := Options{
		BaseURL:    "http://market.test/v1",
		HTTPClient: &http.Client{Transport: &handlerTransport{h: mounted(f), err: transportErr}},
		AuthHeader: "x-api-key", AuthValue: testAuth, Wallet: testWallet,
	}
	if mutate != nil {
		mutate(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// always answers every request with the same reply.
func always(rep reply) func(int, recorded) reply {
	return func(int, recorded) reply { return rep }
}

// sequence answers request n with reps[n] (the last one repeats).
func sequence(reps ...reply) func(int, recorded) reply {
	return func(n int, _ recorded) reply {
		return reps[min(n, len(reps)-1)]
	}
}

// bg returns a context for tests that are not about cancellation.
func bg(t *testing.T) context.Context { return t.Context() }

// errorsAs is errors.AsType for tests that only need a bool.
func isAPIError(err error) (*APIError, bool) { return errors.AsType[*APIError](err) }

// Mints the endpoint cases name.
const (
	solMint  = "So11111111111111111111111111111111111111112"
	usdcMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

// fixture returns one of the market package's recorded answers, which its
// decoders are tested against field by field.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decoded is body as the market package decodes an answer, for comparing
// what the client returns with it.
func decoded[T any](t *testing.T, body string) *T {
	t.Helper()
	out := new(T)
	if err := market.DecodeAnswer([]byte(body), out); err != nil {
		t.Fatal(err)
	}
	return out
}

// clearRaw empties the Raw members of decoded values so they compare with hand-built ones.
func clearRaw(v any) any {
	switch x := v.(type) {
	case *market.VaultsPage:
		for i := range x.Items {
			x.Items[i].Raw = nil
		}
	case []market.Loop:
		for i := range x {
			x[i].Raw = nil
		}
	case *market.EarnTxResponse:
		x.Raw = nil
	}
	return v
}

// isTerminal reports whether err is a failure that retrying cannot fix: a 4xx other than 408 and 429
// (including 400, 401 and 409), or a request the client refused to send. A cancelled context is
// neither retryable nor terminal.
func isTerminal(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	return !IsRetryable(err)
}

// current returns the rate l paces requests at now (0: unlimited).
func (l *limiter) current() float64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rate
}
