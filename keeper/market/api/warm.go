package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/keeper-project/keeper/keeper/market"
)

// Warm readies the encoding of a build request and the decoding of its
// answer: it makes a canned loan build through a client whose transport
// answers from memory, so that the encoders and decoders the JSON library
// builds on the first use of a type are built before an action's build
// waits on them; every build answers with the same transaction objects. A
// process that never acted, as every `keeper run --once` is, otherwise
// spends a fraction of a millisecond of its first action's path on them.
// Warm makes no request; only its first call does anything. Safe for
// concurrent use.
func Warm() {
	warmOnce.Do(func() { _, _ = warmBuild() })
}

// warmOnce makes Warm's work happen once a process.
var warmOnce sync.Once

// warmKey is the address the canned build names: the System program's.
const warmKey = "11111111111111111111111111111111"

// warmBuild makes Warm's canned build and returns its answer.
func warmBuild() (*market.BuildLoanResponse, error) {
	c, err := New(Options{BaseURL: "http://warm.invalid/v1", Wallet: warmKey,
		HTTPClient: &http.Client{Transport: cannedBuild{}}, Retry: RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		return nil, fmt.Errorf("warm: %w", err)
	}
	req := market.BuildLoanRequest{Loan: warmKey, Steps: []market.Step{{Type: market.StepRepay,
		Params: market.StepParams{RepayParams: []market.RepayParam{{Amount: 1}}}}}}
	return c.BuildLoan(context.Background(), "warm", req)
}

// warmAnswer is the canned build's answer.
const warmAnswer = `{"loan":"` + warmKey + `","transactions":[{"message":"AQ==","signatures":[{"publicKey":"` + warmKey + `","signature":"1"}]}]}`

// cannedBuild is an http.RoundTripper that answers every request with
// warmAnswer, in memory.
type cannedBuild struct{}

// RoundTrip answers req with warmAnswer.
func (cannedBuild) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(warmAnswer)),
		ContentLength: int64(len(warmAnswer)),
		Request:       req,
	}, nil
}
