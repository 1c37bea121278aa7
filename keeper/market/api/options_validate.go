package api

import (
	"errors"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
	"net/url"
	"strings"
)

// validate checks defaulted options. Errors never repeat the base URL or the auth value.
func (o Options) validate() (*url.URL, error) {
	base, err := parseBaseURL(o.BaseURL)
	if err != nil {
		return nil, err
	}
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(o.Timeout > 0, "timeout must be positive")
	check(o.MaxResponseBytes > 0, "max response bytes must be positive")
	check(o.RateLimit.PerSecond >= 0 && o.RateLimit.Burst >= 0, "rate limit must not be negative")
	check(o.Retry.MaxAttempts >= 1, "retry max attempts must be at least 1")
	check(o.Retry.BaseBackoff > 0 && o.Retry.MaxBackoff >= o.Retry.BaseBackoff,
		"retry backoff must satisfy 0 < base <= max")
	check(validToken(o.WalletHeader) && validToken(o.PayerHeader), "wallet and payer header names must be HTTP tokens")
	check(validHeaderValue(o.UserAgent), "user agent must be printable text")
	check(o.AuthValue == "" || validToken(o.AuthHeader), "auth header name must be an HTTP token when an auth value is set")
	check(validHeaderValue(o.AuthValue), "auth value must be printable text")
	check(o.Wallet == "" || market.IsPublicKey(o.Wallet), "wallet %q is not a base58 public key", market.Echo(o.Wallet))
	check(o.Payer == "" || market.IsPublicKey(o.Payer), "payer %q is not a base58 public key", market.Echo(o.Payer))
	if err := o.Paths.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.QueueFields.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("market: options: %w", err)
	}
	return base, nil
}

// parseBaseURL parses and checks the base URL without ever echoing it.
func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return nil, errors.New("market: options: base URL is required")
	case err != nil:
		return nil, errors.New("market: options: base URL does not parse")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("market: options: base URL scheme must be http or https")
	case u.Host == "":
		return nil, errors.New("market: options: base URL has no host")
	case u.Fragment != "":
		return nil, errors.New("market: options: base URL must not have a fragment")
	case !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1"):
		return nil, errors.New("market: options: base URL path must end in /v1")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// validToken reports whether s is a non-empty RFC 9110 token (a valid header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !isUnreserved(c) && !strings.ContainsRune("!#$%&'*+^`|", c) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s holds only visible ASCII and spaces.
func validHeaderValue(s string) bool {
	for _, c := range s {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}
