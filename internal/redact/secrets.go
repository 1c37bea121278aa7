package redact

import (
	"cmp"
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// minSecret is the shortest value Secrets replaces: a shorter one cannot hold a key, and
// replacing it would garble ordinary text.
const minSecret = 4

// minSegment is the shortest path segment Secrets replaces on its own (the whole path is replaced
// from minSecret): short segments are words such as "api" or "rpc", keys are long.
const minSegment = 8

// Secrets are strings that must never be printed: the parts of keyed URLs that URL hides, and
// values such as an auth header's. The zero value replaces nothing.
type Secrets struct {
	// parts are longest first, so that a secret inside a longer one never leaves the rest of the
	// longer one behind.
	parts []part
}

// part is a secret and what stands in its place: a URL whole becomes its URL form, so that the
// text still names the host; anything else becomes Marker.
type part struct{ secret, shown string }

// Of returns the secrets of urls: each URL whole and every part of it URL hides (user info, user
// name and password, the path and its long segments, the query and its values, the fragment, long
// hidden host labels), as written and as net/url escapes them.
func Of(urls ...string) Secrets {
	var s Secrets
	for _, raw := range urls {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			s = s.with(Marker, raw, strings.TrimSpace(raw))
			continue
		}
		s = s.with(URL(raw), raw, strings.TrimSpace(raw), u.String()).withURL(u)
	}
	return s
}

// withURL adds the parts of u that URL hides.
func (s Secrets) withURL(u *url.URL) Secrets {
	if u.User != nil {
		pass, _ := u.User.Password()
		s = s.With(u.User.String(), u.User.Username(), pass)
	}
	s = s.With(u.RawQuery, u.Fragment, u.EscapedFragment())
	if !slices.Contains(shownPath, u.EscapedPath()) {
		s = s.With(u.EscapedPath(), u.Path)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= minSegment {
			s = s.With(seg)
		}
	}
	for _, vs := range u.Query() {
		s = s.With(vs...)
	}
	if _, err := netip.ParseAddr(u.Hostname()); err != nil {
		_, hidden := hostName(u.Hostname())
		s = s.With(hidden...)
	}
	return s
}

// With returns s and values, each as written and as a URL query or path escapes it; values
// shorter than 4 bytes are left out.
func (s Secrets) With(values ...string) Secrets { return s.with(Marker, values...) }

// with returns s and values, each replaced by shown.
func (s Secrets) with(shown string, values ...string) Secrets {
	parts := slices.Clone(s.parts)
	for _, v := range values {
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			known := slices.ContainsFunc(parts, func(p part) bool { return p.secret == form })
			if len(form) >= minSecret && !known {
				parts = append(parts, part{secret: form, shown: shown})
			}
		}
	}
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(len(b.secret), len(a.secret)) })
	return Secrets{parts: parts}
}

// Longest returns the length of the longest secret, 0 for none.
func (s Secrets) Longest() int {
	if len(s.parts) == 0 {
		return 0
	}
	return len(s.parts[0].secret)
}

// Text returns t with every secret replaced: a URL by its URL form, anything else by <secret>.
func (s Secrets) Text(t string) string {
	for _, p := range s.parts {
		t = strings.ReplaceAll(t, p.secret, p.shown)
	}
	return t
}

// Error returns err's text with every secret replaced by <secret>, nil for nil. The result does not
// wrap err: what err wraps may quote a secret, and nothing should reach it.
func (s Secrets) Error(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(s.Text(err.Error()))
}
