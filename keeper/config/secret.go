package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/keeper-project/keeper/internal/redact"
)

const redacted = "<secret>"

// Secret is a string that must never be printed: formatting, logging and
// marshalling show <secret> (or nothing when empty). Reveal returns the value.
type Secret string

// Reveal returns the secret value; call it only where the value is used.
func (s Secret) Reveal() string { return string(s) }

// String returns <secret>, or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString redacts like String, so %#v is safe.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// LogValue redacts the secret in log/slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalYAML redacts the secret when a Config is dumped.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// MarshalJSON redacts the secret in JSON output.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// URL is an endpoint address that may carry credentials in its user info,
// query or path (keyed RPC URLs). It prints as redact.URL shows it
// (scheme://host/<secret>); Reveal returns the full address.
type URL string

// Reveal returns the full URL; call it only where the URL is dialled.
func (u URL) Reveal() string { return string(u) }

// String returns the URL with user info, path and query hidden.
func (u URL) String() string { return redact.URL(string(u)) }

// GoString redacts like String, so %#v is safe.
func (u URL) GoString() string { return fmt.Sprintf("%q", u.String()) }

// LogValue redacts the URL in log/slog output.
func (u URL) LogValue() slog.Value { return slog.StringValue(u.String()) }

// MarshalYAML redacts the URL when a Config is dumped.
func (u URL) MarshalYAML() (any, error) { return u.String(), nil }

// MarshalJSON redacts the URL in JSON output.
func (u URL) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// DSN is the journal's data source name: an SQLite path, which prints as
// it is, or a PostgreSQL URL, which prints without its password and
// parameters. Reveal returns it whole.
type DSN string

// Reveal returns the full DSN; call it only where the journal is opened.
func (d DSN) Reveal() string { return string(d) }

// Shared reports whether the DSN names a PostgreSQL journal, which several
// keepers share, one leading.
func (d DSN) Shared() bool {
	return strings.HasPrefix(string(d), "postgres://") || strings.HasPrefix(string(d), "postgresql://")
}

// String returns the DSN with a PostgreSQL URL's password and parameters
// hidden.
func (d DSN) String() string {
	if !d.Shared() {
		return string(d)
	}
	scheme, rest, _ := strings.Cut(string(d), "://")
	rest, query, _ := strings.Cut(rest, "?")
	user, hostPath := "", rest
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		user, hostPath = rest[:i], rest[i+1:]
		if name, _, hasPassword := strings.Cut(user, ":"); hasPassword {
			user = name + ":" + redacted
		}
		user += "@"
	}
	if query != "" {
		hostPath += "?" + redacted
	}
	return scheme + "://" + user + hostPath
}

// GoString redacts like String, so %#v is safe.
func (d DSN) GoString() string { return fmt.Sprintf("%q", d.String()) }

// LogValue redacts the DSN in log/slog output.
func (d DSN) LogValue() slog.Value { return slog.StringValue(d.String()) }

// MarshalYAML redacts the DSN when a Config is dumped.
func (d DSN) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON redacts the DSN in JSON output.
func (d DSN) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }
