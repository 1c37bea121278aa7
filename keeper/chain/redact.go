package chain

import (
	"errors"
	"net/url"
	"strings"
)

// RedactURL returns raw reduced to scheme and host, safe to print: the
// userinfo, path, query and fragment are dropped because any of them may carry
// an API key (providers put keys in the query, in the userinfo or as a path
// segment). A string that does not parse as an absolute URL yields
// "<invalid url>" so that nothing of it is echoed.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "<invalid url>"
	}
	return u.Scheme + "://" + u.Host
}

// secretParts lists the substrings of raw that must never be printed: the
// whole URL, its userinfo, path, query and query values, and any extra
// secrets (parts shorter than 6 bytes excepted: they cannot hold a key, and
// replacing them would garble messages).
func secretParts(raw string, extra ...string) []string {
	parts := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		if u.User != nil {
			pass, _ := u.User.Password()
			parts = append(parts, u.User.String(), u.User.Username(), pass)
		}
		parts = append(parts, u.RawQuery, u.EscapedPath(), u.Path)
		for _, vs := range u.Query() {
			parts = append(parts, vs...)
		}
	}
	parts = append(parts, extra...)
	out := parts[:0]
	for _, p := range parts {
		if len(p) >= 6 {
			out = append(out, p)
		}
	}
	return out
}

// scrubText replaces every secret part in s.
func scrubText(s string, secrets []string) string {
	for _, p := range secrets {
		s = strings.ReplaceAll(s, p, "REDACTED")
	}
	return s
}

// ScrubError returns err with every secret part of rawURL (its path, query,
// userinfo and the whole URL) replaced, for errors of clients that hold the
// URL (such as a websocket's) and may quote it. A nil err stays nil.
func ScrubError(err error, rawURL string) error {
	if err == nil {
		return nil
	}
	return errors.New(scrubText(err.Error(), secretParts(rawURL)))
}
