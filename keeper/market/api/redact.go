package api

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxExcerpt bounds the body excerpt kept in an APIError.
const maxExcerpt = 256

// redacted replaces secrets in error text.
const redacted = "[REDACTED]"

// redactor removes secrets (the auth value, base URL query values and password) from text.
type redactor struct {
	secrets []string
}

// newRedactor collects the secrets of the options and the base URL. Secrets shorter than 4 bytes are
// skipped: replacing them would mangle ordinary text while protecting nothing.
func newRedactor(authValue string, base *url.URL) redactor {
	var r redactor
	add := func(s string) {
		if len(s) >= 4 {
			r.secrets = append(r.secrets, s, url.QueryEscape(s))
		}
	}
	add(authValue)
	for _, vs := range base.Query() {
		for _, v := range vs {
			add(v)
		}
	}
	if pw, ok := base.User.Password(); ok {
		add(pw)
	}
	if base.User != nil {
		add(base.User.Username())
	}
	return r
}

// redact replaces every secret in s.
func (r redactor) redact(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	return s
}

// excerptScan bounds how much of a body excerpt looks at: past it, only runs of space could still
// collapse into the excerpt, and a body that long is cut anyway.
const excerptScan = 64 << 10

// head returns the start of body that excerpt looks at. When the body is longer, the head is cut
// further by the longest secret's length, so that no secret that straddles the cut leaves its first
// part in the head unredacted.
func (r redactor) head(body []byte) []byte {
	if len(body) <= excerptScan {
		return body
	}
	longest := 0
	for _, s := range r.secrets {
		longest = max(longest, len(s))
	}
	return body[:excerptScan-longest]
}

// excerpt returns a short printable excerpt of a body with secrets redacted: invalid UTF-8 and control
// characters become spaces, runs of space collapse, and the result is cut at maxExcerpt bytes.
func (r redactor) excerpt(body []byte) string {
	s := r.redact(strings.ToValidUTF8(string(r.head(body)), " "))
	var b strings.Builder
	space := false
	for _, c := range s {
		if unicode.IsControl(c) || unicode.IsSpace(c) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if b.Len()+utf8.RuneLen(c) > maxExcerpt {
			b.WriteString("…")
			break
		}
		b.WriteRune(c)
	}
	return strings.TrimSpace(b.String())
}
