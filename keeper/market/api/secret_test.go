package api

import (
	"github.com/keeper-project/keeper/keeper/market"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// echoAuth answers with the request's auth header echoed in every place an error can carry text.
func echoAuth(status int, shape string) func(int, recorded) reply {
	return func(_ int, r recorded) reply {
		v := r.Header.Get("X-Api-Key")
		h := map[string]string{"x-request-id": "id-" + v}
		switch shape {
		case "envelope":
			return reply{Status: status, Header: h, Body: `{"error":{"code":400,"message":"bad key ` + v +
				`","simulation":{"decoded":"` + v + `","logs":["log ` + v + `"]}}}`}
		case "text":
			return reply{Status: status, Header: h, Body: "denied for " + url.QueryEscape(v) + " and " + v}
		default: // a 2xx body whose bad value is the secret
			return reply{Status: status, Header: h, Body: `[{"vaultAddress":"V","userDeposits":[{"amountSupplied":"` + v + `"}]}]`}
		}
	}
}

func TestAuthValueNeverInErrors(t *testing.T) {
	tests := []struct {
		name    string
		respond func(int, recorded) reply
	}{
		{"envelope echo", echoAuth(400, "envelope")},
		{"text echo", echoAuth(502, "text")},
		{"decode echo", echoAuth(200, "decode")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newServer(t, &fakeAPI{respond: tc.respond}, nil)
			_, err := c.VaultDeposits(bg(t), market.VaultDepositsQuery{})
			if err == nil {
				t.Fatal("want an error")
			}
			assertNoSecret(t, err, testAuth)
			if ae, ok := isAPIError(err); ok {
				assertNoSecret(t, ae.RequestID+ae.Body+ae.Message, testAuth)
				if ae.Simulation != nil {
					assertNoSecret(t, ae.Simulation.Decoded+strings.Join(ae.Simulation.Logs, ""), testAuth)
				}
			}
		})
	}
}

func TestKeyedURLNeverInErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the dial is refused
	const key = "url-key-abcdef123456"
	c, err := New(Options{
		BaseURL: "http://user:pa55word@" + addr + "/v1?api-key=" + key, AuthHeader: "x-api-key", AuthValue: testAuth,
		Retry: RetryPolicy{MaxAttempts: 1}, HTTPClient: &http.Client{},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Loops(bg(t), market.LoopsQuery{})
	if err == nil || !IsRetryable(err) {
		t.Fatalf("err = %v, want a retryable connection error", err)
	}
	for _, s := range []string{key, "pa55word", testAuth, "api-key"} {
		assertNoSecret(t, err, s)
	}
}

func TestOptionErrorsDoNotEchoSecrets(t *testing.T) {
	for _, o := range []Options{
		{BaseURL: "http://h/v2?api-key=url-key-abcdef123456"},
		{BaseURL: "ftp://h/v1?api-key=url-key-abcdef123456"},
		{BaseURL: "http://h/v1", AuthHeader: "bad header", AuthValue: testAuth},
		{BaseURL: "http://h/v1", AuthHeader: "x-api-key", AuthValue: testAuth + "\n"},
	} {
		_, err := New(o)
		if err == nil {
			t.Fatalf("New(%+v) succeeded", o.AuthHeader)
		}
		assertNoSecret(t, err, "url-key-abcdef123456")
		assertNoSecret(t, err, testAuth)
	}
}

// assertNoSecret fails when v's text contains secret or its query-escaped form.
func assertNoSecret(t *testing.T, v any, secret string) {
	t.Helper()
	var s string
	switch x := v.(type) {
	case error:
		s = x.Error()
	case string:
		s = x
	}
	if strings.Contains(s, secret) || strings.Contains(s, url.QueryEscape(secret)) {
		t.Errorf("secret %q leaked in %q", secret, s)
	}
}
