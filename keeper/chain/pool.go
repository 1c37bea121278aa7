package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"golang.org/x/time/rate"

	"github.com/keeper-project/keeper/internal/wait"
)

// downFor is how long an endpoint that failed over is tried only after the
// healthy ones.
const downFor = 30 * time.Second

// pool calls a list of endpoints in order with failover, a shared rate
// limit, a per-request timeout and an observer. Safe for concurrent use.
type pool struct {
	eps     []*endpoint
	limiter *rate.Limiter
	timeout time.Duration
	retry   Retry
	observe func(string, time.Duration, error)
	log     *slog.Logger

	mu        sync.Mutex
	downUntil []time.Time // guarded by mu; per endpoint, zero when healthy
	holdUntil []time.Time // guarded by mu; per endpoint, the end of the pause it asked for with Retry-After
}

// newPool returns a pool over eps.
func newPool(eps []*endpoint, lim *rate.Limiter, o Options) *pool {
	return &pool{
		eps: eps, limiter: lim, timeout: o.RequestTimeout, retry: o.Retry, observe: o.Observe, log: o.Logger,
		downUntil: make([]time.Time, len(eps)), holdUntil: make([]time.Time, len(eps)),
	}
}

// call runs fn against endpoints until one succeeds or fails with an error
// another endpoint cannot fix; when every endpoint failed so, it tries them
// all again after a backoff, or after the longer pause the last error asked
// for with Retry-After, up to the retry policy's rounds. When that wait
// would pass ctx's deadline, it returns the last error at once. Errors are
// classified (*HTTPError, *TransportError, *RPCError) and never contain a
// URL.
func (p *pool) call(ctx context.Context, method string, fn func(context.Context, *endpoint) error) error {
	for round := 1; ; round++ {
		err := p.round(ctx, method, fn)
		if err == nil || ctx.Err() != nil || !failoverWorthy(err) || round >= p.retry.Rounds {
			return err
		}
		d := max(p.retry.backoff(round), retryAfterOf(err))
		if passesDeadline(ctx, d) {
			p.log.Debug("rpc call failed, and its retry would come after the deadline", "method", method, "round", round, "wait", d, "err", err)
			return err
		}
		p.log.Warn("rpc call failed, retrying", "method", method, "round", round, "wait", d, "err", err)
		if !wait.For(ctx, d) {
			return err
		}
	}
}

// callFor is call for a method whose answer fn returns: the answer of the
// endpoint that succeeded.
func callFor[T any](ctx context.Context, p *pool, method string, fn func(context.Context, *endpoint) (T, error)) (T, error) {
	var out T
	err := p.call(ctx, method, func(ctx context.Context, ep *endpoint) error {
		var err error
		out, err = fn(ctx, ep)
		return err
	})
	return out, err
}

// callJSON is callFor of a JSON-RPC method called by name with params, its
// result decoded into a new T on each try.
func callJSON[T any](ctx context.Context, p *pool, method string, params []any) (T, error) {
	return callFor(ctx, p, method, func(ctx context.Context, ep *endpoint) (T, error) {
		var out T
		err := ep.raw.CallForInto(ctx, &out, method, params)
		return out, err
	})
}

// valueOf is the {"context": {"slot": …}, "value": …} envelope of an
// answer.
type valueOf[T any] struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value T `json:"value"`
}

// round tries each endpoint once, in order of health, until one succeeds or
// fails with an error another endpoint cannot fix.
func (p *pool) round(ctx context.Context, method string, fn func(context.Context, *endpoint) error) error {
	var last error
	order := p.order()
	for n, i := range order {
		err := p.attempt(ctx, method, i, fn)
		if err == nil {
			p.mark(i, nil)
			return nil
		}
		last = err
		if ctx.Err() != nil || !failoverWorthy(err) {
			return err
		}
		p.mark(i, err)
		if n+1 < len(order) {
			p.log.Warn("rpc endpoint failed, trying the next one", "method", method, "endpoint", p.eps[i].name, "err", err)
		}
	}
	if len(order) > 1 {
		return fmt.Errorf("all %d endpoints failed: %w", len(order), last)
	}
	return last
}

// attempt makes one rate-limited, time-bounded call to endpoint i, once
// the pause it asked for with Retry-After, if any, is over.
func (p *pool) attempt(ctx context.Context, method string, i int, fn func(context.Context, *endpoint) error) error {
	if err := p.ready(ctx, method, i); err != nil {
		return err
	}
	ep := p.eps[i]
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	rctx, pr := withProbe(rctx)
	err := classify(method, ep, pr, fn(rctx, ep))
	p.observe(method, time.Since(start), err)
	return err
}

// classify turns what solana-go returned, and what the probe saw, into one
// of this package's error types.
func classify(method string, ep *endpoint, pr *probe, err error) error {
	var re *jsonrpc.RPCError
	switch {
	case pr.err != nil:
		inner := pr.err
		var ue *url.Error
		if errors.As(inner, &ue) {
			inner = ue.Err // url.Error prints the URL
		}
		return &TransportError{Method: method, Endpoint: ep.name, Err: scrub(inner, ep)}
	case pr.status != 0 && (pr.status < 200 || pr.status > 299):
		return &HTTPError{Method: method, Endpoint: ep.name, Status: pr.status, RetryAfter: pr.retryAfter}
	case err == nil:
		return nil
	case errors.As(err, &re):
		return newRPCError(method, ep, re)
	}
	// A 2xx body that is not a JSON-RPC answer (solana-go wraps the decoder's
	// error in a message naming the URL: keep the decoder's error only), or a
	// result of the wrong shape.
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	return &TransportError{Method: method, Endpoint: ep.name, Err: fmt.Errorf("malformed response: %w", scrub(err, ep))}
}

// scrub returns err unchanged unless its text contains a secret part of the
// endpoint's URL, in which case a redacted copy of the text is returned.
func scrub(err error, ep *endpoint) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := ep.secrets.Text(msg); clean != msg {
		return errors.New(clean)
	}
	return err
}

// newRPCError formats a JSON-RPC error without the URL, lifting program logs
// out of its data.
func newRPCError(method string, ep *endpoint, re *jsonrpc.RPCError) *RPCError {
	out := &RPCError{Method: method, Endpoint: ep.name, Code: re.Code, Message: ep.secrets.Text(re.Message), Data: normalize(re.Data)}
	if m, ok := out.Data.(map[string]any); ok {
		if logs, ok := m["logs"].([]any); ok {
			for _, l := range logs {
				if s, ok := l.(string); ok {
					out.Logs = append(out.Logs, s)
				}
			}
		}
	}
	return out
}

// order returns endpoint indexes: healthy ones in configured order, then
// those that failed recently, then those still inside the pause they asked
// for with Retry-After, the soonest free first.
func (p *pool) order() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	healthy := make([]int, 0, len(p.eps))
	var down, held []int
	for i := range p.eps {
		switch {
		case now.Before(p.holdUntil[i]):
			held = append(held, i)
		case now.Before(p.downUntil[i]):
			down = append(down, i)
		default:
			healthy = append(healthy, i)
		}
	}
	slices.SortStableFunc(held, func(a, b int) int { return p.holdUntil[a].Compare(p.holdUntil[b]) })
	return slices.Concat(healthy, down, held)
}

// mark records an endpoint's health after an attempt: err is nil for an
// answer, else the failover-worthy error it failed with. An *HTTPError with
// a Retry-After also holds the endpoint until that pause is over.
func (p *pool) mark(i int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.downUntil[i] = time.Time{}
		return
	}
	now := time.Now()
	p.downUntil[i] = now.Add(downFor)
	if he, ok := errors.AsType[*HTTPError](err); ok && he.RetryAfter > 0 {
		if end := now.Add(he.RetryAfter); end.After(p.holdUntil[i]) {
			p.holdUntil[i] = end
		}
	}
}

// newHTTPClient returns the default HTTP client: no client-wide timeout
// (each request carries a context deadline) and pooled connections.
func newHTTPClient() *http.Client {
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // replaced by someone: start from the standard settings
		tr = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	tr = tr.Clone()
	tr.MaxIdleConnsPerHost = 8
	return &http.Client{Transport: tr}
}
