package strictyaml

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/keeper-project/keeper/internal/redact"
)

// maxExcerpt is the most runes of a value an error message quotes.
const maxExcerpt = 24

// Excerpt renders a value from a file for an error message without echoing what may be a secret:
// a file named by mistake (a key file matched by a policy glob, say) must not reach a terminal or a
// log through its own error. A URL keeps its scheme and host and loses its credentials, path and
// query (see redact.URL); a short value is quoted as it is; a long value without spaces (a key, a token) is
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

// maxName is the most runes of a name an error message quotes: the longest base58 address (44
// characters), so a mint or an account is named in full.
const maxName = 44

// NameExcerpt renders a name from a file (a mapping key, an address, a mint) for an error
// message: quoted whole when it is no longer than an address, so a mistyped one shows as written;
// a URL as Excerpt renders it; anything longer described by its length. A secret pasted where a
// name goes (a private key for an address, a line of a key file read as a key) is not echoed.
func NameExcerpt(name string) string {
	if u, ok := urlExcerpt(name); ok {
		return u
	}
	if n := utf8.RuneCountInString(name); n > maxName {
		return fmt.Sprintf("a value of %d characters", n)
	}
	return strconv.Quote(name)
}

// PathSegment renders a mapping key as a segment of a dotted path in a message: the key itself
// when NameExcerpt would quote it whole, its excerpt in brackets otherwise.
func PathSegment(key string) string {
	e := NameExcerpt(key)
	if e == strconv.Quote(key) {
		return key
	}
	return "[" + e + "]"
}

// urlExcerpt renders s as redact.URL does when it is a URL with a host, reporting whether it was.
func urlExcerpt(s string) (string, bool) {
	if !strings.Contains(s, "://") {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return "", false
	}
	return strconv.Quote(redact.URL(s)), true
}
