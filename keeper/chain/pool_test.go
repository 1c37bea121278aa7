package chain

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
)

// statusServer answers every request with an HTTP status, counting them.
type statusServer struct {
	mu     sync.Mutex
	status int
	body   string
	n      int
}

func (s *statusServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	w.WriteHeader(s.status)
	fmt.Fprint(w, s.body)
}

// rpcErrorServer answers every request with one JSON-RPC error.
func rpcErrorServer(code int, msg string) http.Handler {
	return handlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":%q}}`, code, msg)
	})
}

// realClient returns a client of the given URLs over real sockets on
// 127.0.0.1, logging into the returned buffer.
func realClient(t *testing.T, urls []string, observe func(string, time.Duration, error)) (*Client, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	c, err := New(Options{
		RPCURLs: urls, RequestTimeout: 5 * time.Second, Observe: observe,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, logs
}

func TestFailover(t *testing.T) {
	fc := newFakeChain(150)
	wallet := solana.NewWallet().PublicKey()
	fc.accounts[wallet] = &Account{Lamports: 777}
	good := httptest.NewServer(fc)
	defer good.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name     string
		first    http.Handler // nil: connection refused
		failover bool
	}{
		{"429", &statusServer{status: http.StatusTooManyRequests}, true},
		{"500", &statusServer{status: http.StatusInternalServerError}, true},
		{"502 with html", &statusServer{status: http.StatusBadGateway, body: "<html>bad gateway</html>"}, true},
		{"connection refused", nil, true},
		{"node behind", rpcErrorServer(-32005, "Node is behind by 42 slots"), true},
		{"malformed 200", &statusServer{status: http.StatusOK, body: "<html>"}, true},
		{"invalid params is terminal", rpcErrorServer(-32602, "Invalid params"), false},
		{"401 is terminal", &statusServer{status: http.StatusUnauthorized}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := closed.URL
			if tt.first != nil {
				srv := httptest.NewServer(tt.first)
				defer srv.Close()
				first = srv.URL
			}
			var observed []string
			var mu sync.Mutex
			c, _ := realClient(t, []string{first + "/?api-key=" + secretKey, good.URL}, func(m string, _ time.Duration, err error) {
				mu.Lock()
				defer mu.Unlock()
				observed = append(observed, fmt.Sprintf("%s:%v", m, err == nil))
			})
			before := len(fc.callsOf("getBalance"))
			got, err := c.Balance(t.Context(), wallet)
			served := len(fc.callsOf("getBalance")) - before
			if tt.failover {
				if err != nil || got != 777 || served != 1 {
					t.Fatalf("balance %d, err %v, second endpoint served %d; want 777 from the second", got, err, served)
				}
				if want := []string{"getBalance:false", "getBalance:true"}; fmt.Sprint(observed) != fmt.Sprint(want) {
					t.Errorf("observed %v, want %v", observed, want)
				}
				// The failed endpoint now waits behind the healthy one.
				if _, err := c.Balance(t.Context(), wallet); err != nil || len(observed) != 3 {
					t.Errorf("second call: err %v, %d attempts observed, want the healthy endpoint first", err, len(observed))
				}
				return
			}
			if err == nil || served != 0 || Retryable(err) {
				t.Fatalf("err %v (retryable %v), second endpoint served %d; want a terminal error, no failover", err, Retryable(err), served)
			}
		})
	}
}

func TestFailoverOnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(150)
		wallet := solana.NewWallet().PublicKey()
		fc.accounts[wallet] = &Account{Lamports: 5}
		hang := handlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		c, err := New(Options{
			RPCURLs:        []string{"http://slow.test/", "http://good.test/"},
			RequestTimeout: 3 * time.Second,
			HTTPClient:     &http.Client{Transport: memTransport{"slow.test": hang, "good.test": fc}},
		})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := c.Balance(t.Context(), wallet)
		if err != nil || got != 5 {
			t.Fatalf("balance %d, err %v", got, err)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("took %v, want exactly the 3 s request timeout", took)
		}
	})
}

func TestAllEndpointsFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := New(Options{
			RPCURLs:    []string{"http://a.test/", "http://b.test/"},
			HTTPClient: &http.Client{Transport: memTransport{}},
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Balance(t.Context(), solana.PublicKey{})
		var te *TransportError
		if !errors.As(err, &te) || !Retryable(err) || !contains(err.Error(), "all 2 endpoints failed") {
			t.Fatalf("err = %v, want a retryable transport error naming both endpoints failing", err)
		}
	})
}

func TestRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(150)
		c, _ := newMemClient(t, fc, func(o *Options) { o.RateLimit, o.RateBurst = 5, 1 })
		for range 6 {
			if _, err := c.Balance(t.Context(), solana.PublicKey{}); err != nil {
				t.Fatal(err)
			}
		}
		calls := fc.callsOf("getBalance")
		for i, call := range calls {
			if got, want := call.at.Sub(fc.start), time.Duration(i)*200*time.Millisecond; got != want {
				t.Errorf("call %d at %v, want %v (5 per second, burst 1)", i, got, want)
			}
		}
	})
}

func TestSecretsNeverPrinted(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	servers := map[string]http.Handler{
		"http 500":     &statusServer{status: 500},
		"malformed":    &statusServer{status: 200, body: "not json"},
		"rpc error":    rpcErrorServer(-32602, "Invalid params"),
		"wrong result": handlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"x"}`) }),
	}
	for name, h := range servers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			checkNoSecret(t, srv.URL)
		})
	}
	t.Run("connection refused", func(t *testing.T) { checkNoSecret(t, closed.URL) })
}

// checkNoSecret calls base with the key in the query, the userinfo and the
// path, and asserts no error or log shows it.
func checkNoSecret(t *testing.T, base string) {
	t.Helper()
	host := base[len("http://"):]
	for _, u := range []string{
		base + "/?api-key=" + secretKey,
		"http://user:" + secretKey + "@" + host + "/",
		base + "/" + secretKey + "/",
	} {
		c, logs := realClient(t, []string{u, u}, nil)
		_, err := c.Balance(t.Context(), solana.PublicKey{})
		if err == nil {
			t.Fatal("want an error")
		}
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), logs.buf.String()} {
			if bytes.Contains([]byte(text), []byte(secretKey)) {
				t.Errorf("secret printed: %s", text)
			}
		}
		if !contains(err.Error(), "http://"+host) {
			t.Errorf("error %q does not name the endpoint", err)
		}
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no url", Options{}, "at least one rpc url"},
		{"bad scheme", Options{RPCURLs: []string{"ftp://u:" + secretKey + "@h/?k=" + secretKey}}, "scheme must be http or https"},
		{"not a url", Options{RPCURLs: []string{"::" + secretKey}}, "rpc url #1: not an absolute url"},
		{"bad jito", Options{RPCURLs: []string{"http://a/"}, JitoURL: "jito"}, "jito url: not an absolute url"},
		{"processed", Options{RPCURLs: []string{"http://a/"}, Commitment: "processed"}, "unsafe"},
		{"unknown commitment", Options{RPCURLs: []string{"http://a/"}, Commitment: "max"}, "want confirmed or finalized"},
		{"negative", Options{RPCURLs: []string{"http://a/"}, PollInterval: -1}, "poll interval must not be negative"},
		{"negative rate", Options{RPCURLs: []string{"http://a/"}, RateLimit: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.o)
			if err == nil || !contains(err.Error(), tt.want) || contains(err.Error(), secretKey) {
				t.Fatalf("err = %v, want %q and no secret", err, tt.want)
			}
		})
	}
}

func TestOptionsPrintRedacted(t *testing.T) {
	o := Options{RPCURLs: []string{secretRPC}, SendURL: "https://u:" + secretKey + "@send.test/", JitoURL: "https://jito.test/?uuid=" + secretKey, JitoAuth: secretKey}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("opts", "o", o)
	for _, s := range []string{fmt.Sprint(o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o), logs.String()} {
		if contains(s, secretKey) || !contains(s, "http://rpc.test") || !contains(s, "JitoAuth:set") {
			t.Errorf("printed %q", s)
		}
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"429", &HTTPError{Status: 429}, true},
		{"503", &HTTPError{Status: 503}, true},
		{"403", &HTTPError{Status: 403}, false},
		{"transport", &TransportError{Err: errors.New("reset")}, true},
		{"node unhealthy", &RPCError{Code: -32005}, true},
		{"min context slot", &RPCError{Code: -32016}, true},
		{"signature failure", &RPCError{Code: -32003}, false},
		{"preflight program error", &RPCError{Code: -32002, Logs: []string{"x"}}, false},
		{"landed failure", &TxError{Err: "InsufficientFundsForFee"}, false},
		{"wrapped 429", fmt.Errorf("ctx: %w", &HTTPError{Status: 429}), true},
		{"cancelled", &TransportError{Err: fmt.Errorf("x: %w", errors.Join(errors.New("y"), contextCanceled()))}, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := Retryable(tt.err); got != tt.want {
			t.Errorf("%s: Retryable = %v, want %v", tt.name, got, tt.want)
		}
	}
}
