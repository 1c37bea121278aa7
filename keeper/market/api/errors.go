package api

import (
	"errors"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
	"net/http"
	"strings"
	"time"
)

// ErrIdempotencyConflict matches (with errors.Is) an *APIError of status 409: the idempotency key was
// reused with a different request body. It is terminal: for keeper it means a bug, never a retry.
var ErrIdempotencyConflict = errors.New("market: idempotency key reused with a different request body")

// ErrUnauthorized matches (with errors.Is) an *APIError of status 401.
var ErrUnauthorized = errors.New("market: unauthorized")

// APIError is a failure the service answered with: a non-2xx status, or a 2xx body that could not be
// used (not JSON, wrong shape, larger than Options.MaxResponseBytes). Code, Message and Simulation come
// from the error envelope when it parses. Body is a short, sanitised excerpt of the response body.
// No field ever holds the auth value.
type APIError struct {
	// Endpoint is the endpoint name, e.g. "loans_info".
	Endpoint string
	// Status is the HTTP status code.
	Status int
	// Code is error.code from the envelope (it mirrors Status), or 0.
	Code int32
	// Message is error.message from the envelope, or a description of why the body was unusable.
	Message string
	// Simulation is error.simulation, present on some endpoints.
	Simulation *Simulation
	// RequestID is the x-request-id response header.
	RequestID string
	// RetryAfter is the parsed Retry-After header, or 0.
	RetryAfter time.Duration
	// Body is a short excerpt of the response body.
	Body string
	// Malformed reports a 2xx answer whose body could not be decoded or lacked what it must carry: a
	// garbled body or one cut short by a proxy. It is transient: the same request (with the same
	// Idempotent-Key, so the market replays a write) may be sent again.
	Malformed bool
}

// Simulation is the transaction simulation attached to some error envelopes.
type Simulation struct {
	Decoded               string   `json:"decoded"`
	Logs                  []string `json:"logs"`
	SerializedTransaction string   `json:"serializedTransaction"`
}

// Error describes the failure: endpoint, status, message (or body excerpt) and request id.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "market: %s: HTTP %d", e.Endpoint, e.Status)
	if t := http.StatusText(e.Status); t != "" {
		b.WriteString(" " + t)
	}
	switch {
	case e.Message != "":
		b.WriteString(": " + e.Message)
	case e.Body != "":
		fmt.Fprintf(&b, ": body %q", e.Body)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	return b.String()
}

// Is matches ErrIdempotencyConflict for status 409 and ErrUnauthorized for status 401.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrIdempotencyConflict:
		return e.Status == http.StatusConflict
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	}
	return false
}

// TransportError is a failure to get a complete response: connection refused or reset, timeout,
// truncated body, cancelled context. Err never includes the request URL.
type TransportError struct {
	// Endpoint is the endpoint name.
	Endpoint string
	// Err is the underlying error.
	Err error
	// msg is Err's text with secrets redacted.
	msg string
}

// Error describes the failure.
func (e *TransportError) Error() string { return "market: " + e.Endpoint + ": " + e.msg }

// Unwrap returns the underlying error.
func (e *TransportError) Unwrap() error { return e.Err }

// invalid is the error of a request to endpoint ep that the client refuses
// to send; it wraps market.ErrInvalidRequest and err.
func invalid(ep string, err error) error {
	return fmt.Errorf("market: %s: %w: %w", ep, market.ErrInvalidRequest, err)
}
