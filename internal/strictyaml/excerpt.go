package strictyaml

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxExcerpt is the most runes of a value an error message quotes.
const maxExcerpt = 24

// Excerpt renders a value from a file for an error message without echoing what may be a secret:
// a file named by mistake (a key file matched by a policy glob, say) must not reach a terminal or a
// log through its own error. A URL keeps its scheme and host and loses its credentials, path and
// query; a short value is quoted as it is; a long value without spaces (a key, a token) is
// described by its length only; other long values are cut to their first words.
func Excerpt(s string) string {
	if u, ok := urlExcerpt(s); ok {
		return u
	}
	r := []rune(s)
	if len(r) <= maxExcerpt {
		return strconv.Quote(s)
	}
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return fmt.Sprintf("a value of %d characters", len(r))
	}
	return strconv.Quote(string(r[:maxExcerpt/2])) + fmt.Sprintf("… (%d characters)", len(r))
}

// maxKey is the most runes of a mapping key an error message quotes: the longest base58 address
// (44 characters), so a mint keying a map is named in full.
const maxKey = 44

// KeyExcerpt renders a mapping key from a file for an error message: quoted when it is no longer
// than an address, described by its length otherwise. A key is where a secret pasted as a line of
// its own lands ("<key>:" or a URL followed by a colon), so it is excerpted as a value is.
func KeyExcerpt(key string) string {
	if u, ok := urlExcerpt(key); ok {
		return u
	}
	if n := utf8.RuneCountInString(key); n > maxKey {
		return fmt.Sprintf("a key of %d characters", n)
	}
	return strconv.Quote(key)
}

// KeySegment renders key as a segment of a dotted path in a message: the key itself when
// KeyExcerpt would quote it whole, its excerpt in brackets otherwise.
func KeySegment(key string) string {
	e := KeyExcerpt(key)
	if e == strconv.Quote(key) {
		return key
	}
	return "[" + e + "]"
}

// urlExcerpt renders s as scheme://host/… when it is a URL with a host, reporting whether it was.
func urlExcerpt(s string) (string, bool) {
	if !strings.Contains(s, "://") {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return "", false
	}
	out := u.Scheme + "://" + u.Host
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		out += "/…"
	}
	return strconv.Quote(out), true
}
