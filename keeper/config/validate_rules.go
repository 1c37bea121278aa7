package config

import (
	"net/url"
	"strings"

	"github.com/mr-tron/base58"

	"github.com/keeper-project/keeper/internal/strictyaml"

	"github.com/keeper-project/keeper/internal/redact"
)

// This file holds the rules for single values (URLs, headers, keys,
// durations, rate limits, retries, auth) that the sections share.

// url checks an http:// or https:// URL with a host; empty fails only when required.
func (v *validator) url(path []any, name, raw string, required bool) {
	if raw == "" {
		if required {
			v.fail(path, "%s is required", name)
		}
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		got := redact.URL(raw)
		if !strings.Contains(raw, "://") && !strings.ContainsAny(raw, "/?@") {
			got = strictyaml.Excerpt(raw) // a plain word is no keyed URL: show it
		}
		v.fail(path, "%s must be an http:// or https:// URL%s, got %s", name, monikerHint(name), got)
	}
}

// wsURL checks an optional websocket URL: ws:// or wss:// with a host.
func (v *validator) wsURL(path []any, name, raw string) {
	if raw == "" {
		return
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		v.fail(path, "%s must be a ws:// or wss:// URL, got %s", name, redact.URL(raw))
	}
}

// monikerHint names the monikers an RPC URL key also takes.
func monikerHint(name string) string {
	if strings.HasPrefix(name, "chain.rpc_url") {
		return " or one of mainnet-beta, devnet, testnet, localhost"
	}
	return ""
}

// basePathIsV1 reports whether raw's path (not its query or fragment) ends in /v1, with or without a
// trailing slash: a keyed URL such as https://host/v1?key=X is a valid API root.
func basePathIsV1(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
}

// header checks an HTTP header name; empty fails only when required.
func (v *validator) header(path []any, name, h string, required bool) {
	if h == "" {
		if required {
			v.fail(path, "%s is required", name)
		}
		return
	}
	if strings.ContainsAny(h, " :\t\r\n") {
		v.fail(path, "%s %s is not a valid HTTP header name", name, strictyaml.Excerpt(h))
	}
}

// pubkey checks a base58 public key of 32 bytes; empty fails only when required.
func (v *validator) pubkey(path []any, name, s string, required bool) {
	if s == "" {
		if required {
			v.fail(path, "%s is required (a base58 program id)", name)
		}
		return
	}
	if b, err := base58.Decode(s); err != nil || len(b) != 32 {
		v.fail(path, "%s: %s is not a base58 public key of 32 bytes", name, strictyaml.NameExcerpt(s))
	}
}

// positive fails at path unless ok.
func (v *validator) positive(path []any, name string, ok bool) {
	if !ok {
		v.fail(path, "%s must be positive", name)
	}
}

// validate checks a rate limit at path.
func (r RateLimit) validate(v *validator, path []any, name string) {
	if r.RPS <= 0 {
		v.fail(append(path, "rps"), "%s.rps must be positive, got %g", name, r.RPS)
	}
	if r.Burst < 1 {
		v.fail(append(path, "burst"), "%s.burst must be at least 1, got %d", name, r.Burst)
	}
}

// validate checks a retry policy at path, named after its section path[0].
func (r Retry) validate(v *validator, path []any) {
	if r.Attempts < 1 {
		v.fail(append(path, "attempts"), "%s.retry.attempts must be at least 1, got %d", path[0], r.Attempts)
	}
	if r.Base <= 0 || r.Max < r.Base {
		v.fail(path, "%s.retry needs 0 < base <= max, got base %s, max %s", path[0], r.Base, r.Max)
	}
}

// validate checks an auth header and value at path, reading value_file into the value.
func (a *Auth) validate(v *validator, path []any, name string) {
	if a.ValueFile != "" {
		if a.Value != "" {
			v.fail(append(path, "value_file"), "%s: set value or value_file, not both", name)
		}
		a.Value = Secret(v.readSecretFile(append(path, "value_file"), a.ValueFile))
	}
	if a.Value != "" && a.Header == "" && name != "chain.jito_auth" {
		v.fail(append(path, "header"), "%s.header is required when a value is set", name)
	}
	if a.Header != "" {
		v.header(append(path, "header"), name+".header", a.Header, true)
	}
}
