package signer

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// redacted is what a Signer prints instead of its secret.
const redactedSecret = "[redacted]"

// String returns "signer(<public key>)". The secret is never shown.
func (id identity) String() string { return "signer(" + id.pub.String() + ")" }

// GoString implements fmt.GoStringer for %#v, showing the public key only.
func (id identity) GoString() string {
	return fmt.Sprintf("signer.Signer{PublicKey: %q, Secret: %q}", id.pub.String(), redactedSecret)
}

// Format implements fmt.Formatter so that every verb, including %x, %d and
// %q, prints the public key only.
func (id identity) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, id.GoString())
		return
	}
	fmt.Fprint(f, id.String())
}

// LogValue implements slog.LogValuer: a group holding the public key.
func (id identity) LogValue() slog.Value {
	return slog.GroupValue(slog.String("publicKey", id.pub.String()))
}

// MarshalJSON implements json.Marshaler: {"publicKey": "..."}.
func (id identity) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		PublicKey string `json:"publicKey"`
	}{id.pub.String()})
}

// MarshalText implements encoding.TextMarshaler (used by YAML, XML and slog's
// text handler): the same text as String.
func (id identity) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

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
