package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Solana JSON-RPC error codes this package acts on.
const (
	codeSendPreflightFailure     = -32002
	codeBlockNotAvailable        = -32004
	codeNodeUnhealthy            = -32005
	codeBlockStatusNotAvailable  = -32014
	codeMinContextSlotNotReached = -32016
	codeInternal                 = -32603
)

// RPCError is a JSON-RPC error answered by a node or the block engine,
// formatted without the endpoint's URL (solana-go's own RPCError prints a
// multi-line dump).
type RPCError struct {
	Method   string // JSON-RPC method
	Endpoint string // redacted endpoint, see redact.URL
	Code     int
	Message  string
	Data     any      // the error's data member, decoded from JSON
	Logs     []string // program logs, when Data carries them (preflight failures)
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("%s on %s: rpc error %d: %s", e.Method, e.Endpoint, e.Code, e.Message)
}

// HTTPError is a non-2xx HTTP status from an endpoint.
type HTTPError struct {
	Method   string
	Endpoint string // redacted
	Status   int
	// RetryAfter is how long the endpoint asked, with a Retry-After header,
	// to be sent nothing more, cut to maxRetryAfter (a minute); 0 when it
	// did not ask.
	RetryAfter time.Duration
}

// Error implements error.
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s on %s: http status %d %s", e.Method, e.Endpoint, e.Status, http.StatusText(e.Status))
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %v)", e.RetryAfter.Round(time.Millisecond))
	}
	return msg
}

// TransportError is a failure to get any answer from an endpoint: a timeout,
// a refused or reset connection, a malformed response, or a request not sent
// because the endpoint asked with Retry-After to be left alone until after
// the caller's deadline.
type TransportError struct {
	Method   string
	Endpoint string // redacted
	Err      error  // never contains the endpoint's URL
}

// Error implements error.
func (e *TransportError) Error() string {
	return fmt.Sprintf("%s on %s: %v", e.Method, e.Endpoint, e.Err)
}

// Unwrap returns the underlying error.
func (e *TransportError) Unwrap() error { return e.Err }

// Retryable reports whether err is worth trying again later with the same
// input: HTTP 429 and 5xx, timeouts and connection failures, nodes that are
// behind or unhealthy (what another endpoint might answer: see
// failoverWorthy), a node's internal error, a simulation that failed only
// because the node has not seen the blockhash yet, and ErrWalletMoving.
// Everything else (signature failures, program errors with logs,
// insufficient funds, malformed input, a cancelled context) is terminal.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, ErrWalletMoving) || failoverWorthy(err) {
		return true
	}
	var re *RPCError
	if errors.As(err, &re) {
		return re.Code == codeInternal
	}
	var se *SimError
	return errors.As(err, &se) && se.BlockhashNotFound()
}

// failoverWorthy reports whether another endpoint may answer where this one
// did not: HTTP 429 and 5xx, timeouts, connection errors, and nodes that
// are behind or unhealthy. An error of this package's calls holds one of
// *HTTPError, *RPCError and *TransportError.
func failoverWorthy(err error) bool {
	var he *HTTPError
	var re *RPCError
	var te *TransportError
	switch {
	case errors.As(err, &he):
		return he.Status == http.StatusTooManyRequests || he.Status >= 500
	case errors.As(err, &re):
		switch re.Code {
		case codeNodeUnhealthy, codeMinContextSlotNotReached, codeBlockNotAvailable, codeBlockStatusNotAvailable:
			return true
		}
		return false
	}
	return errors.As(err, &te)
}

// SimError is a transaction that failed in simulation: the chain's error and
// the program logs up to the failure.
type SimError struct {
	Err   any      // the chain's TransactionError, decoded from JSON
	Logs  []string // program logs, possibly empty
	Index int      // which transaction of a simulated sequence failed
}

// Error implements error.
func (e *SimError) Error() string {
	msg := "simulation failed: " + errJSON(e.Err)
	if n := len(e.Logs); n > 0 {
		msg += " (last log: " + e.Logs[n-1] + ")"
	}
	return msg
}

// BlockhashNotFound reports whether the simulation failed only because the
// node does not know the transaction's blockhash (yet).
func (e *SimError) BlockhashNotFound() bool {
	s, ok := e.Err.(string)
	return ok && s == "BlockhashNotFound"
}

// RentAccount returns the index, among the transaction's account keys, of
// the account the runtime refused to leave below its rent-exempt minimum
// ({"InsufficientFundsForRent":{"account_index":i}}).
func (e *SimError) RentAccount() (int, bool) {
	m, _ := e.Err.(map[string]any)
	r, _ := m["InsufficientFundsForRent"].(map[string]any)
	return jsonIndex(r["account_index"])
}

// Instruction returns the index of the instruction the simulation failed
// at, when the error is an InstructionError ({"InstructionError":[i, …]}).
func (e *SimError) Instruction() (int, bool) {
	m, _ := e.Err.(map[string]any)
	pair, ok := m["InstructionError"].([]any)
	if !ok || len(pair) != 2 {
		return 0, false
	}
	return jsonIndex(pair[0])
}

// jsonIndex reads an index out of a chain error: a non-negative whole
// number, as JSON decodes it (float64) or as Go code writes it (int).
func jsonIndex(v any) (int, bool) {
	switch i := v.(type) {
	case float64:
		if i >= 0 && i == float64(int(i)) {
			return int(i), true
		}
	case int:
		if i >= 0 {
			return i, true
		}
	}
	return 0, false
}

// TxError is a transaction that landed on chain and failed: its fee was paid
// and its effects were rolled back. It is terminal.
type TxError struct {
	Signature string
	Slot      uint64
	Err       any // the chain's TransactionError, decoded from JSON
}

// Error implements error.
func (e *TxError) Error() string {
	return fmt.Sprintf("transaction %s landed in slot %d and failed: %s", e.Signature, e.Slot, errJSON(e.Err))
}

// errJSON renders a chain error compactly.
func errJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// ErrBundleFull is returned when the market's transactions leave no room in a
// bundle for keeper's tip transaction and the tip policy does not allow a
// fallback to RPC. Nothing was sent.
var ErrBundleFull = errors.New("bundle has no room for the tip transaction (max 5 transactions) and rpc fallback is not allowed")

// ErrDurableNonce is returned for a transaction that uses a durable nonce:
// such a transaction never expires by block height, so this package could
// never prove that it will not land, and refuses to send it.
var ErrDurableNonce = errors.New("durable-nonce transactions are not supported: their expiry cannot be proven")

// sendErrorKind classifies a sendTransaction error.
type sendErrorKind int

const (
	sendOK sendErrorKind = iota
	sendAlreadyProcessed
	sendBlockhashNotFound
	sendRetryable
	sendRejected
)

// classifySend tells what a sendTransaction error means for the loop. Only
// a node that answered with a non-retryable JSON-RPC error rejected the
// transaction; anything else (no answer, 429, 5xx, a rate-limiter wait cut
// short) is worth another try.
func classifySend(err error) sendErrorKind {
	var re *RPCError
	switch {
	case err == nil:
		return sendOK
	case !errors.As(err, &re):
		return sendRetryable
	}
	txErr := ""
	if m, ok := re.Data.(map[string]any); ok {
		txErr, _ = m["err"].(string)
	}
	msg := strings.ToLower(re.Message)
	switch {
	case txErr == "AlreadyProcessed" || strings.Contains(msg, "already been processed"):
		return sendAlreadyProcessed
	case txErr == "BlockhashNotFound" || strings.Contains(msg, "blockhash not found"):
		return sendBlockhashNotFound
	case Retryable(err):
		return sendRetryable
	}
	return sendRejected
}

// normalize re-decodes a JSON value with the standard library, turning the
// json.Number values solana-go's decoder leaves behind into float64, so that
// callers see plain JSON types.
func normalize(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}
