package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// envelope is the error body every endpoint uses.
type envelope struct {
	Error *struct {
		Code       json.Number `json:"code"`
		Message    string      `json:"message"`
		Simulation *Simulation `json:"simulation"`
	} `json:"error"`
}

// apiError builds the *APIError of a non-2xx or oversized response. A body that is not the envelope
// still yields the status, request id and a safe excerpt.
func (t *transport) apiError(ep string, resp *http.Response, data []byte, tooLarge bool) error {
	e := t.baseAPIError(ep, resp, data)
	var env envelope
	switch {
	case tooLarge:
		e.Message = fmt.Sprintf("response body larger than %d bytes", t.opts.MaxResponseBytes)
	case json.Unmarshal(data, &env) == nil && env.Error != nil:
		if code, err := strconv.ParseInt(env.Error.Code.String(), 10, 32); err == nil {
			e.Code = int32(code)
		}
		e.Message = t.redactor.redact(env.Error.Message)
		e.Simulation = t.redactSimulation(env.Error.Simulation)
	}
	return e
}

// decodeError builds the *APIError of a 2xx body that does not decode into the response type.
func (t *transport) decodeError(ep string, resp *http.Response, data []byte, err error) error {
	e := t.baseAPIError(ep, resp, data)
	e.Message = "cannot decode response: " + t.redactor.redact(err.Error())
	e.Malformed = e.Status >= 200 && e.Status <= 299
	return e
}

// baseAPIError fills the fields every APIError has.
func (t *transport) baseAPIError(ep string, resp *http.Response, data []byte) *APIError {
	return &APIError{
		Endpoint:   ep,
		Status:     resp.StatusCode,
		RequestID:  t.redactor.excerpt([]byte(resp.Header.Get("x-request-id"))),
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
		Body:       t.redactor.excerpt(data),
	}
}

// redactSimulation redacts secrets from a simulation's text.
func (t *transport) redactSimulation(s *Simulation) *Simulation {
	if s == nil {
		return nil
	}
	out := &Simulation{Decoded: t.redactor.redact(s.Decoded), SerializedTransaction: s.SerializedTransaction}
	for _, l := range s.Logs {
		out.Logs = append(out.Logs, t.redactor.redact(l))
	}
	return out
}

// maxRetryAfterSeconds caps a parsed Retry-After delay (one day), however it is written.
const maxRetryAfterSeconds = 24 * 60 * 60

// parseRetryAfter parses a Retry-After header (delay in seconds or an HTTP date) relative to now.
// Missing, malformed or past values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, maxRetryAfterSeconds)) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0
	}
	return min(t.Sub(now), maxRetryAfterSeconds*time.Second)
}
