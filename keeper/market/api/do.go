package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
	"net/http"
	"net/url"
	"time"
)

// request is an endpoint's request, which checks itself before it is sent.
type request interface{ Validate() error }

// call checks req and, when it is valid, sends it to ep (with key when ep is a write), decoding the
// answer into out.
func call(ctx context.Context, t *transport, ep string, key market.IdempotencyKey, req request, out any) error {
	if err := req.Validate(); err != nil {
		return invalid(ep, err)
	}
	return t.post(ctx, ep, key, req, out)
}

// fetch is call with the answer decoded into a new T.
func fetch[T any](ctx context.Context, t *transport, ep string, key market.IdempotencyKey, req request) (*T, error) {
	out := new(T)
	if err := call(ctx, t, ep, key, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// list is fetch of a read whose answer is a strict JSON array of T.
func list[T any](ctx context.Context, t *transport, ep string, req request) ([]T, error) {
	out, err := fetch[market.StrictList[T]](ctx, t, ep, "", req)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// post sends one call to endpoint ep: it checks the key (writes) and wallet, encodes in once, and
// runs attempts under the retry policy, decoding a 2xx body into out.
func (t *transport) post(ctx context.Context, ep string, key market.IdempotencyKey, in, out any) error {
	r, ok := t.routes[ep]
	if !ok {
		return fmt.Errorf("market: unknown endpoint %q", ep)
	}
	if err := t.precheck(r, key); err != nil {
		return fmt.Errorf("market: %s: %w", ep, err)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("market: %s: encode request: %w", ep, err)
	}
	return t.retry(ctx, ep, func(ctx context.Context) error {
		return t.attempt(ctx, r, key, body, out)
	})
}

// precheck refuses a write without a valid key and a wallet-carrying write without a wallet.
func (t *transport) precheck(r route, key market.IdempotencyKey) error {
	if !r.write {
		return nil
	}
	if err := key.Validate(); err != nil {
		return err
	}
	if t.opts.Wallet == "" {
		return fmt.Errorf("%w: no wallet configured; transaction-building calls need one", market.ErrInvalidRequest)
	}
	return nil
}

// attempt performs one HTTP exchange.
func (t *transport) attempt(ctx context.Context, r route, key market.IdempotencyKey, body []byte, out any) (err error) {
	if err := t.limiter.wait(ctx); err != nil {
		return t.transportError(r.name, fmt.Errorf("rate limiter: %w", err))
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.urls[r.name], bytes.NewReader(body))
	if err != nil {
		return t.transportError(r.name, errors.New("cannot build request"))
	}
	t.setHeaders(req.Header, r, key)
	start, status := time.Now(), 0
	if observe := t.opts.Observe; observe != nil {
		defer func() { observe(r.name, status, time.Since(start), err) }()
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return t.transportError(r.name, err)
	}
	defer resp.Body.Close()
	status = resp.StatusCode
	data, tooLarge, release, err := t.bodies.read(ctx, resp.Body, resp.ContentLength, t.opts.MaxResponseBytes)
	defer release()
	if err != nil {
		return t.transportError(r.name, fmt.Errorf("read response body: %w", err))
	}
	if tooLarge || status < 200 || status > 299 {
		return t.apiError(r.name, resp, data, tooLarge)
	}
	if err := market.DecodeAnswer(data, out); err != nil {
		return t.decodeError(r.name, resp, data, err)
	}
	return nil
}

// setHeaders sets the headers every call carries, plus the key and wallet headers where they apply.
func (t *transport) setHeaders(h http.Header, r route, key market.IdempotencyKey) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", t.opts.UserAgent)
	if t.opts.AuthValue != "" {
		h.Set(t.opts.AuthHeader, t.opts.AuthValue)
	}
	if r.write {
		h.Set("Idempotent-Key", string(key))
	}
	if r.wallet && t.opts.Wallet != "" {
		h.Set(t.opts.WalletHeader, t.opts.Wallet)
		if t.opts.Payer != "" {
			h.Set(t.opts.PayerHeader, t.opts.Payer)
		}
	}
}

// transportError wraps a failure to get a response, dropping the URL that *url.Error carries and
// redacting secrets from the text.
func (t *transport) transportError(ep string, err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return &TransportError{Endpoint: ep, Err: err, msg: t.redactor.redact(err.Error())}
}
