package chainsim

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON-RPC error codes the simulator uses.
const (
	codeParseError        = -32700
	codeInvalidRequest    = -32600
	codeMethodNotFound    = -32601
	codeInvalidParams     = -32602
	codePreflightFailure  = -32002
	codeSigVerifyFailure  = -32003
	codeMinContextSlot    = -32016
	codeUnsupportedTxVers = -32015
)

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// rpcResponse is a JSON-RPC 2.0 response.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// invalidParams returns a -32602 error.
func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// call is one method invocation.
type call struct {
	params    []json.RawMessage
	neverLand bool   // a FaultNeverLand draw: accept, do not land
	lag       uint64 // MethodFaults.LagSlots of the method
}

// methodFunc implements one JSON-RPC method.
type methodFunc func(s *Server, in call) (any, *rpcError)

// splitParams splits the params array; absent or null params are empty.
func splitParams(raw json.RawMessage) ([]json.RawMessage, *rpcError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var params []json.RawMessage
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, invalidParams("params must be an array")
	}
	return params, nil
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// arg decodes parameter i into v, leaving v alone when it is absent or null.
func (in call) arg(i int, v any) *rpcError {
	if i >= len(in.params) || isNull(in.params[i]) {
		return nil
	}
	if err := json.Unmarshal(in.params[i], v); err != nil {
		return invalidParams("parameter %d: %v", i, err)
	}
	return nil
}

// need decodes a required parameter i into v.
func (in call) need(i int, v any) *rpcError {
	if i >= len(in.params) || isNull(in.params[i]) {
		return invalidParams("missing parameter %d", i)
	}
	return in.arg(i, v)
}

// needWithConfig decodes the required parameter 0 into v and the optional
// config object at parameter 1 into cfg.
func (in call) needWithConfig(v, cfg any) *rpcError {
	if rerr := in.need(0, v); rerr != nil {
		return rerr
	}
	return in.arg(1, cfg)
}

// encodeResponse marshals a response to id.
func encodeResponse(id json.RawMessage, result any, rerr *rpcError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = &rpcError{Code: -32603, Message: "Internal error: " + err.Error()}
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
