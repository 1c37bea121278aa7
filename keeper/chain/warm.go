package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Warm readies the decoding of the answers an action waits on after its
// build: it takes a canned simulation answer through the JSON-RPC client,
// on an endpoint that answers from memory, and a canned signature
// notification through its decoding, so that the decoders the JSON
// libraries build on the first use of a type are built before an action
// waits on them. A process that never acted, as every `keeper run --once`
// is, otherwise spends about a millisecond of its first action's path on
// the simulation's alone, between the build and the signing
// (docs/benchmarks.md). Warm makes no request; only its first call does
// anything. Safe for concurrent use.
func Warm() {
	warmOnce.Do(func() { _, _, _ = warmAnswers() })
}

// warmOnce makes Warm's work happen once a process.
var warmOnce sync.Once

// warmAnswers decodes the canned answers as Warm does and returns them.
func warmAnswers() (simAnswer, signatureNotification, error) {
	var n signatureNotification
	ep := newEndpoint("http://warm.invalid", &http.Client{Transport: cannedRPC{result: warmSimulation}}, nil)
	sim, err := callSimulate(context.Background(), ep, []any{"", map[string]any{"encoding": "base64", "sigVerify": false}})
	if err != nil {
		return sim, n, fmt.Errorf("warm: simulation: %w", err)
	}
	if err := json.Unmarshal([]byte(warmNotification), &n); err != nil {
		return sim, n, fmt.Errorf("warm: notification: %w", err)
	}
	return sim, n, nil
}

// warmSimulation is a simulateTransaction result with every member the
// client reads, each nested object present once.
const warmSimulation = `{"context":{"slot":7},"value":{"err":null,"logs":["Program 11111111111111111111111111111111 success"],
"accounts":[{"lamports":1,"owner":"11111111111111111111111111111111","data":["","base64"],"executable":false,"rentEpoch":0,"space":0}],
"unitsConsumed":150,"fee":5000,"preBalances":[10,2],"postBalances":[9,3],
"preTokenBalances":[{"accountIndex":1,"mint":"So11111111111111111111111111111111111111112","owner":"11111111111111111111111111111111","uiTokenAmount":{"amount":"5","decimals":9}}],
"postTokenBalances":[{"accountIndex":1,"mint":"So11111111111111111111111111111111111111112","owner":"11111111111111111111111111111111","uiTokenAmount":{"amount":"4","decimals":9}}],
"loadedAddresses":{"writable":["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],"readonly":[]}}}`

// warmNotification is a signatureSubscribe notification's result.
const warmNotification = `{"context":{"slot":7},"value":{"err":{"InstructionError":[0,"Custom"]}}}`

// cannedRPC is an http.RoundTripper that answers every JSON-RPC call with
// result, in memory.
type cannedRPC struct {
	result string
}

// RoundTrip answers req with result under req's id.
func (c cannedRPC) RoundTrip(req *http.Request) (*http.Response, error) {
	var call struct {
		ID json.RawMessage `json:"id"`
	}
	if req.Body != nil {
		err := json.NewDecoder(req.Body).Decode(&call)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("canned answer: %w", err)
		}
	}
	if len(call.ID) == 0 {
		call.ID = json.RawMessage("null")
	}
	body := `{"jsonrpc":"2.0","id":` + string(call.ID) + `,"result":` + c.result + `}`
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}
