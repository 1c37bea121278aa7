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

// post sends one call to endpoint ep: it checks the key (writes) and wallet, encodes in once, and
// runs attempts under the retry policy, decoding a 2xx body into out.
func (c *Client) post(ctx context.Context, ep string, key market.IdempotencyKey, in, out any) error {
	r, ok := c.routes[ep]
	if !ok {
		return fmt.Errorf("market: unknown endpoint %q", ep)
	}
	if err := c.precheck(r, key); err != nil {
		return fmt.Errorf("market: %s: %w", ep, err)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("market: %s: encode request: %w", ep, err)
	}
	return c.retry(ctx, ep, func(ctx context.Context) error {
		return c.attempt(ctx, r, key, body, out)
	})
}

// precheck refuses a write without a valid key and a wallet-carrying write without a wallet.
func (c *Client) precheck(r route, key market.IdempotencyKey) error {
	if !r.write {
		return nil
	}
	if err := key.Validate(); err != nil {
		return err
	}
	if c.opts.Wallet == "" {
		return fmt.Errorf("%w: no wallet configured; transaction-building calls need one", market.ErrInvalidRequest)
	}
	return nil
}

// attempt performs one HTTP exchange.
func (c *Client) attempt(ctx context.Context, r route, key market.IdempotencyKey, body []byte, out any) (err error) {
	if err := c.limiter.wait(ctx); err != nil {
		return c.transportError(r.name, fmt.Errorf("rate limiter: %w", err))
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.urls[r.name], bytes.NewReader(body))
	if err != nil {
		return c.transportError(r.name, errors.New("cannot build request"))
	}
	c.setHeaders(req.Header, r, key)
	start, status := time.Now(), 0
	defer func() { c.observe(r.name, status, time.Since(start), err) }()
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportError(r.name, err)
	}
	defer resp.Body.Close()
	status = resp.StatusCode
	data, tooLarge, release, err := c.bodies.read(ctx, resp.Body, resp.ContentLength, c.opts.MaxResponseBytes)
	defer release()
	if err != nil {
		return c.transportError(r.name, fmt.Errorf("read response body: %w", err))
	}
	if tooLarge || status < 200 || status > 299 {
		return c.apiError(r.name, resp, data, tooLarge)
	}
	if err := market.DecodeAnswer(data, out); err != nil {
		return c.decodeError(r.name, resp, data, err)
	}
	return nil
}

// setHeaders sets the headers every call carries, plus the key and wallet headers where they apply.
func (c *Client) setHeaders(h http.Header, r route, key market.IdempotencyKey) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", c.opts.UserAgent)
	if c.opts.AuthValue != "" {
		h.Set(c.opts.AuthHeader, c.opts.AuthValue)
	}
	if r.write {
		h.Set("Idempotent-Key", string(key))
	}
	if r.wallet && c.opts.Wallet != "" {
		h.Set(c.opts.WalletHeader, c.opts.Wallet)
		if c.opts.Payer != "" {
			h.Set(c.opts.PayerHeader, c.opts.Payer)
		}
	}
}

// transportError wraps a failure to get a response, dropping the URL that *url.Error carries and
// redacting secrets from the text.
func (c *Client) transportError(ep string, err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return &TransportError{Endpoint: ep, Err: err, msg: c.redactor.redact(err.Error())}
}
