package api

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/keeper-project/keeper/internal/redact"
)

// maxExcerpt bounds the body excerpt kept in an APIError.
const maxExcerpt = 256

// redactor removes secrets (the auth value and every part of the base URL that redact.URL hides)
// from text.
type redactor struct {
	secrets redact.Secrets
}

// newRedactor collects the secrets of the auth value and the base URL.
func newRedactor(authValue, baseURL string) redactor {
	return redactor{secrets: redact.Of(baseURL).With(authValue)}
}

// redact replaces every secret in s.
func (r redactor) redact(s string) string { return r.secrets.Text(s) }

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
	return body[:excerptScan-r.secrets.Longest()]
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
