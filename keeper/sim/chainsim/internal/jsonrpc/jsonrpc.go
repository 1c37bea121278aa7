// Package jsonrpc is the JSON-RPC 2.0 envelope the chain simulator's
// services speak: requests and responses, error objects and the error codes
// the simulator answers with, and the parameters of one method call.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON-RPC error codes the simulator uses.
const (
	CodeParseError        = -32700
	CodeInvalidRequest    = -32600
	CodeMethodNotFound    = -32601
	CodeInvalidParams     = -32602
	CodePreflightFailure  = -32002
	CodeSigVerifyFailure  = -32003
	CodeMinContextSlot    = -32016
	CodeUnsupportedTxVers = -32015
)

// Request is a JSON-RPC 2.0 request.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Response is a JSON-RPC 2.0 response.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// InvalidParams returns a -32602 error.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// Call is one method invocation.
type Call struct {
	Params    []json.RawMessage
	NeverLand bool   // a FaultNeverLand draw: accept, do not land
	Lag       uint64 // MethodFaults.LagSlots of the method
}

// SplitParams splits the params array; absent or null params are empty.
func SplitParams(raw json.RawMessage) ([]json.RawMessage, *Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var params []json.RawMessage
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, InvalidParams("params must be an array")
	}
	return params, nil
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// Arg decodes parameter i into v, leaving v alone when it is absent or null.
func (in Call) Arg(i int, v any) *Error {
	if i >= len(in.Params) || isNull(in.Params[i]) {
		return nil
	}
	if err := json.Unmarshal(in.Params[i], v); err != nil {
		return InvalidParams("parameter %d: %v", i, err)
	}
	return nil
}

// Need decodes a required parameter i into v.
func (in Call) Need(i int, v any) *Error {
	if i >= len(in.Params) || isNull(in.Params[i]) {
		return InvalidParams("missing parameter %d", i)
	}
	return in.Arg(i, v)
}

// NeedWithConfig decodes the required parameter 0 into v and the optional
// config object at parameter 1 into cfg.
func (in Call) NeedWithConfig(v, cfg any) *Error {
	if rerr := in.Need(0, v); rerr != nil {
		return rerr
	}
	return in.Arg(1, cfg)
}

// EncodeResponse marshals a response to id.
func EncodeResponse(id json.RawMessage, result any, rerr *Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp := Response{JSONRPC: "2.0", ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = &Error{Code: -32603, Message: "Internal error: " + err.Error()}
		} else {
			resp.Result = b
		}
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return []byte(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}`)
	}
	return out
}
