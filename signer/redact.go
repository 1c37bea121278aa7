package signer

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// redacted is what a Signer prints instead of its secret.
const redactedSecret = "[redacted]"

// String returns "signer(<public key>)". The secret is never shown.
func (s Signer) String() string { return "signer(" + s.pub.String() + ")" }

// GoString implements fmt.GoStringer for %#v, showing the public key only.
func (s Signer) GoString() string {
	return fmt.Sprintf("signer.Signer{PublicKey: %q, Secret: %q}", s.pub.String(), redactedSecret)
}

// Format implements fmt.Formatter so that every verb, including %x, %d and
// %q, prints the public key only.
func (s Signer) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprint(f, s.String())
}

// LogValue implements slog.LogValuer: a group holding the public key.
func (s Signer) LogValue() slog.Value {
	return slog.GroupValue(slog.String("publicKey", s.pub.String()))
}

// MarshalJSON implements json.Marshaler: {"publicKey": "..."}.
func (s Signer) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		PublicKey string `json:"publicKey"`
	}{s.pub.String()})
}

// MarshalText implements encoding.TextMarshaler (used by YAML, XML and slog's
// text handler): the same text as String.
func (s Signer) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// String hides the key.
func (secret) String() string { return redactedSecret }

// GoString hides the key.
func (secret) GoString() string { return redactedSecret }

// Format hides the key for every verb.
func (secret) Format(f fmt.State, _ rune) { fmt.Fprint(f, redactedSecret) }

// LogValue hides the key.
func (secret) LogValue() slog.Value { return slog.StringValue(redactedSecret) }

// MarshalJSON hides the key.
func (secret) MarshalJSON() ([]byte, error) { return json.Marshal(redactedSecret) }

// MarshalText hides the key.
func (secret) MarshalText() ([]byte, error) { return []byte(redactedSecret), nil }
