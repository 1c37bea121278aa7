package api

import (
	"context"
	"errors"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
	"io"
	"net"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestAPIErrors(t *testing.T) {
	big := `{"error":{"code":500,"message":"` + strings.Repeat("x", 600) + `"}}`
	tests := []struct {
		name     string
		rep      reply
		maxBytes int64
		want     APIError
	}{
		{
			name: "envelope with simulation",
			rep: reply{Status: 400, Header: map[string]string{"x-request-id": "req-123"},
				Body: `{"error":{"code":400,"message":"Request could not be processed.","simulation":` +
					`{"decoded":"custom program error: 0x1","logs":["Program X invoke [1]","Program X failed"],` +
					`"serializedTransaction":"AQID"}}}`},
			want: APIError{Endpoint: market.EndpointVaultDeposits, Status: 400, Code: 400,
				Message: "Request could not be processed.", RequestID: "req-123",
				Simulation: &Simulation{Decoded: "custom program error: 0x1",
					Logs: []string{"Program X invoke [1]", "Program X failed"}, SerializedTransaction: "AQID"}},
		},
		{
			name: "envelope without simulation",
			rep:  reply{Status: 401, Body: `{"error":{"code":401,"message":"Unauthorized"}}`},
			want: APIError{Endpoint: market.EndpointVaultDeposits, Status: 401, Code: 401, Message: "Unauthorized"},
		},
		{
			name: "non-JSON body",
			rep:  reply{Status: 502, Body: "<html>\n<h1>502 Bad\tGateway</h1>\x00</html>"},
			want: APIError{Endpoint: market.EndpointVaultDeposits, Status: 502, Body: "<html> <h1>502 Bad Gateway</h1> </html>"},
		},
		{
			name:     "oversized body",
			rep:      reply{Status: 500, Body: big},
			maxBytes: 64,
			want: APIError{Endpoint: market.EndpointVaultDeposits, Status: 500, Message: "response body larger than 64 bytes",
				Body: big[:64]},
		},
		{
			name:     "oversized 200",
			rep:      reply{Status: 200, Body: `[` + strings.Repeat(`{"vaultAddress":"V"},`, 10) + `{}]`},
			maxBytes: 32,
			want: APIError{Endpoint: market.EndpointVaultDeposits, Status: 200, Message: "response body larger than 32 bytes",
				Body: `[{"vaultAddress":"V"},{"vaultAdd`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{respond: always(tc.rep)}
			c := newServer(t, f, func(o *Options) { o.MaxResponseBytes = tc.maxBytes })
			_, err := c.VaultDeposits(bg(t), market.VaultDepositsQuery{})
			ae, ok := isAPIError(err)
			if !ok {
				t.Fatalf("err = %v (%T), want *APIError", err, err)
			}
			got := *ae
			if tc.want.Body == "" {
				got.Body = ""
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestAPIErrorString(t *testing.T) {
	e := &APIError{Endpoint: "loans_info", Status: 500, Code: 500, Message: "boom", RequestID: "r1"}
	if got, want := e.Error(), "market: loans_info: HTTP 500 Internal Server Error: boom (request id r1)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &APIError{Endpoint: "loans_info", Status: 502, Body: "<html>"}
	if got, want := e.Error(), `market: loans_info: HTTP 502 Bad Gateway: body "<html>"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestExcerptIsShort(t *testing.T) {
	body := strings.Repeat("é", 400)
	f := &fakeAPI{respond: always(reply{Status: 500, Body: body})}
	c := newServer(t, f, nil)
	_, err := c.Loops(bg(t), market.LoopsQuery{})
	ae, ok := isAPIError(err)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if len(ae.Body) > maxExcerpt+len("…") || !strings.HasSuffix(ae.Body, "…") || !strings.HasPrefix(ae.Body, "éé") {
		t.Errorf("excerpt of %d bytes: %q", len(ae.Body), ae.Body)
	}
}

// TestUndecodable2xx shows a garbled 2xx answer to a build retried with the same Idempotent-Key (the
// market replays the same answer for it), bounded by the retry policy, and reported as retryable.
func TestUndecodable2xx(t *testing.T) {
	f := &fakeAPI{respond: always(reply{Body: `{"loan":"L","transactions":"not-an-array"}`})}
	c := newServer(t, f, func(o *Options) { o.Retry.MaxAttempts = 3 })
	_, err := c.BuildLoan(bg(t), testKey, market.BuildLoanRequest{Loan: "L", Steps: []market.Step{{Type: market.StepRepay}}})
	ae, ok := isAPIError(err)
	if !ok || ae.Status != 200 || !ae.Malformed || !strings.HasPrefix(ae.Message, "cannot decode response") {
		t.Fatalf("err = %v", err)
	}
	if isTerminal(err) || !IsRetryable(err) {
		t.Errorf("undecodable 2xx: terminal %v retryable %v, want retryable", isTerminal(err), IsRetryable(err))
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("attempts = %d, want 3 (the retry bound)", len(reqs))
	}
	for i, r := range reqs {
		if got := r.Header.Get("Idempotent-Key"); got != string(testKey) {
			t.Errorf("attempt %d key %q, want the same key %q", i, got, testKey)
		}
	}
}

// TestCutAnswerThenReplay shows a build answer cut short by a proxy followed by the market's replay of
// the whole answer: the call succeeds on the replay.
func TestCutAnswerThenReplay(t *testing.T) {
	whole := `{"loan":"L","transactions":[{"message":"AQ","signatures":[]}]}`
	f := &fakeAPI{respond: sequence(reply{Body: whole[:17]}, reply{Body: whole})}
	c := newServer(t, f, func(o *Options) { o.Retry.MaxAttempts = 3 })
	if _, err := c.BuildLoan(bg(t), testKey, market.BuildLoanRequest{Loan: "L", Steps: []market.Step{{Type: market.StepRepay}}}); err != nil {
		t.Fatalf("replayed answer: %v", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("attempts = %d, want 2", n)
	}
}

// TestWellFormed4xxIsFinal keeps a well-formed refusal final: it is not sent again.
func TestWellFormed4xxIsFinal(t *testing.T) {
	f := &fakeAPI{respond: always(reply{Status: 400, Body: `{"error":{"code":400,"message":"loan is closed"}}`})}
	c := newServer(t, f, func(o *Options) { o.Retry.MaxAttempts = 3 })
	_, err := c.BuildLoan(bg(t), testKey, market.BuildLoanRequest{Loan: "L", Steps: []market.Step{{Type: market.StepRepay}}})
	if !isTerminal(err) || len(f.requests()) != 1 {
		t.Errorf("400: terminal %v after %d requests, want terminal after 1", isTerminal(err), len(f.requests()))
	}
}

func TestEmptyTransactionResponsesRefused(t *testing.T) {
	tests := []struct {
		name string
		body string
		call func(c *Client) error
	}{
		{"E1 empty array", `[]`, func(c *Client) error {
			_, err := c.UpdateStrategy(t.Context(), testKey, market.StrategyUpdateRequest{Strategy: "S"})
			return err
		}},
		{"E9 no message", `{"message":"","signatures":[]}`, func(c *Client) error {
			_, err := c.WithdrawFromStrategy(t.Context(), testKey, market.WithdrawStrategyRequest{Strategy: "S", Amount: 1})
			return err
		}},
		{"E10 no txs", `{"action":"withdrawClaim","requestId":"R","txBase64s":[]}`, func(c *Client) error {
			_, err := c.ClaimEarnWithdrawal(t.Context(), testKey, market.WithdrawClaimRequest{Address: "A", Wallet: "W", RequestID: "R"})
			return err
		}},
		{"E10 other request", `{"action":"withdrawClaim","requestId":"Other","txBase64s":["AQ"]}`, func(c *Client) error {
			_, err := c.ClaimEarnWithdrawal(t.Context(), testKey, market.WithdrawClaimRequest{Address: "A", Wallet: "W", RequestID: "R"})
			return err
		}},
		{"E10 other action", `{"action":"deposit","requestId":"R","txBase64s":["AQ"]}`, func(c *Client) error {
			_, err := c.ClaimEarnWithdrawal(t.Context(), testKey, market.WithdrawClaimRequest{Address: "A", Wallet: "W", RequestID: "R"})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newServer(t, &fakeAPI{respond: always(reply{Body: tc.body})}, nil)
			err := tc.call(c)
			if err == nil || !isTerminal(err) {
				t.Errorf("err = %v, want a terminal error", err)
			}
		})
	}
}

func TestClassification(t *testing.T) {
	api := func(status int) error { return &APIError{Endpoint: "x", Status: status} }
	wrapped := func(err error) error { return fmt.Errorf("page 2: %w", err) }
	tests := []struct {
		name                string
		err                 error
		retryable, terminal bool
	}{
		{"nil", nil, false, false},
		{"500", api(500), true, false},
		{"503 wrapped", wrapped(api(503)), true, false},
		{"429", api(429), true, false},
		{"408", api(408), true, false},
		{"400", api(400), false, true},
		{"401", api(401), false, true},
		{"404", api(404), false, true},
		{"409", api(409), false, true},
		{"200 undecodable", api(200), false, true},
		{"deadline", &TransportError{Endpoint: "x", Err: context.DeadlineExceeded}, true, false},
		{"canceled", &TransportError{Endpoint: "x", Err: context.Canceled}, false, false},
		{"canceled while waiting after 503", fmt.Errorf("%w; last: %w", context.Canceled, api(503)), false, false},
		{"reset", &TransportError{Err: &net.OpError{Op: "read", Err: syscall.ECONNRESET}}, true, false},
		{"refused", &TransportError{Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, true, false},
		{"EOF", &TransportError{Err: io.EOF}, true, false},
		{"unexpected EOF", &TransportError{Err: io.ErrUnexpectedEOF}, true, false},
		{"dns temporary", &net.DNSError{Err: "x", IsTemporary: true}, true, false},
		{"dns not found", &net.DNSError{Err: "x", IsNotFound: true}, false, true},
		{"invalid request", invalid("x", errors.New("bad")), false, true},
		{"plain error", errors.New("x"), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRetryable(tc.err); got != tc.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tc.retryable)
			}
			if got := isTerminal(tc.err); got != tc.terminal {
				t.Errorf("isTerminal = %v, want %v", got, tc.terminal)
			}
		})
	}
}

func TestSentinels(t *testing.T) {
	conflict := fmt.Errorf("wrapped: %w", &APIError{Status: 409})
	if !errors.Is(conflict, ErrIdempotencyConflict) || errors.Is(conflict, ErrUnauthorized) {
		t.Error("409 must match ErrIdempotencyConflict only")
	}
	if !errors.Is(&APIError{Status: 401}, ErrUnauthorized) || errors.Is(&APIError{Status: 400}, ErrIdempotencyConflict) {
		t.Error("401 must match ErrUnauthorized; 400 must not match ErrIdempotencyConflict")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"7", 7 * time.Second}, {" 2 ", 2 * time.Second}, {"0", 0}, {"-3", 0}, {"soon", 0},
		{"Thu, 02 Jan 2025 03:04:35 GMT", 30 * time.Second},
		{"Thu, 02 Jan 2025 03:00:00 GMT", 0},
		{"999999999", 24 * time.Hour},
		{"Fri, 02 Jan 2026 03:04:05 GMT", 24 * time.Hour},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
