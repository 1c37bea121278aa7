package chain

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/keeper-project/keeper/internal/redact"
)

// maxResponseBytes bounds a JSON-RPC response body.
const maxResponseBytes = 32 << 20

// endpoint is one JSON-RPC server.
type endpoint struct {
	name    string         // redact.URL of the URL: the only form ever printed
	secrets redact.Secrets // parts of the URL (and auth) that must never be printed
	raw     jsonrpc.RPCClient
	rpc     *rpc.Client
}

// newEndpoint builds an endpoint whose requests go through hc and report
// their HTTP outcome through the probe in their context.
func newEndpoint(rawURL string, hc *http.Client, headers map[string]string, secrets ...string) *endpoint {
	raw := jsonrpc.NewClientWithOpts(rawURL, &jsonrpc.RPCClientOpts{
		HTTPClient:    probingClient{hc: hc},
		CustomHeaders: headers,
	})
	return &endpoint{
		name:    redact.URL(rawURL),
		secrets: redact.Of(rawURL).With(secrets...),
		raw:     raw,
		rpc:     rpc.NewWithCustomRPCClient(raw),
	}
}

// probe records what happened to the HTTP request of one call: solana-go's
// jsonrpc folds the status and the transport error into messages that carry
// the URL, so the facts are taken here instead.
type probe struct {
	status     int
	retryAfter time.Duration // the response's Retry-After, 0 when absent
	err        error
}

// probeKey is the context key of a *probe.
type probeKey struct{}

// probingClient is a jsonrpc.HTTPClient that records each request's outcome
// in the probe found in the request's context and bounds the response body.
type probingClient struct {
	hc *http.Client
}

// Do implements jsonrpc.HTTPClient.
func (c probingClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if p, ok := req.Context().Value(probeKey{}).(*probe); ok {
		p.err = err
		if resp != nil {
			p.status = resp.StatusCode
			p.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
	}
	if resp != nil {
		resp.Body = limitedBody{Reader: io.LimitReader(resp.Body, maxResponseBytes), Closer: resp.Body}
	}
	return resp, err
}

// CloseIdleConnections implements jsonrpc.HTTPClient.
func (c probingClient) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// limitedBody is a size-limited response body that still closes the original.
type limitedBody struct {
	io.Reader
	io.Closer
}

// withProbe returns ctx carrying a fresh probe.
func withProbe(ctx context.Context) (context.Context, *probe) {
	p := &probe{}
	return context.WithValue(ctx, probeKey{}, p), p
}
