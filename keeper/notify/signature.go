package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// SignatureHeader is the header a webhook with a signing secret carries:
// "t=<unix seconds>,v1=<hex HMAC-SHA256>", the HMAC keyed by the secret
// over the timestamp, a dot and the raw body ("1764331200.{...}"). A
// receiver recomputes it over the body it read, compares it in constant
// time, and refuses a timestamp more than a few minutes from its clock
// (a replayed post). docs/operations.md shows a receiver.
const SignatureHeader = "X-Keeper-Signature"

// Signature is SignatureHeader's value for body sent at t.
func Signature(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// WithSigningSecret makes w sign every body it posts with secret (nothing
// when it is empty).
func (w *Webhook) WithSigningSecret(secret string) *Webhook {
	w.signingSecret = []byte(secret)
	return w
}
