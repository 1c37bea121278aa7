package strictyaml

import (
	"strings"
	"testing"
)

func TestExcerptHidesSecrets(t *testing.T) {
	secrets := []struct{ in, secret string }{
		{"2RC5QvT9s3kVn1bQxYp8LmZ7wHfJcDaEgUoRiKtNyBzXq4WeSdFgHjKlMnBvCxZaQwErTyUiOpAsDfGhJkLzXcVbNm", "QvT9s3kVn1bQ"},
		{"postgres://keeper:hunter2pass@db.internal:5432/keeper?sslmode=require", "hunter2pass"},
		{"https://rpc.example.com/v1?api-key=0123456789abcdef", "0123456789abcdef"},
		{"https://mainnet.helius-rpc.com/?api-key=abcdef0123456789", "abcdef0123456789"},
		{"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"", "VERSION_ID"},
		{"[3,141,59,26,53,58,97,93,238,46,26,43,38,32,79,50,28,84,197,16,93,99,37,51,5,82,9,74,94,45,92,30,78]", "59,26,53"},
	}
	for _, c := range secrets {
		got := Excerpt(c.in)
		if strings.Contains(got, c.secret) {
			t.Errorf("Excerpt(%.12q…) = %s: echoes %q", c.in, got, c.secret)
		}
		if len(got) > 2*maxExcerpt+24 {
			t.Errorf("Excerpt(%.12q…) = %s: longer than a short excerpt", c.in, got)
		}
	}
}

func TestExcerptKeepsPlainValues(t *testing.T) {
	for in, want := range map[string]string{
		"processed":             `"processed"`,
		"devnet":                `"devnet"`,
		"http://127.0.0.1:7070": `"http://127.0.0.1:7070"`,
		"sqlite:keeper.db":      `"sqlite:keeper.db"`,
	} {
		if got := Excerpt(in); got != want {
			t.Errorf("Excerpt(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestKeysAreExcerpted pastes a private key where a key goes (as an unknown field, a duplicate and a
// map key whose value is wrong): no message may carry it, and each still says what is wrong.
func TestKeysAreExcerpted(t *testing.T) {
	const secret = "2RC5QvT9s3kVn1bQxYp8LmZ7wHfJcDaEgUoRiKtNyBzXq4WeSdFgHjKlMnBvCxZaQwErTy"
	const url = "https://rpc.example.com/v1?api-key=0123456789abcdef"
	cases := map[string]string{
		secret + ": 1\n":                                   `unknown field a value of 70 characters at the top level`,
		"inner:\n  " + url + ": 1\n":                       `unknown field "https://rpc.example.com/<secret>" in inner`,
		"labels: {" + secret + ": [1]}\n":                  `labels.[a value of 70 characters]: expected a string`,
		"labels: {" + secret + ": a, " + secret + ": b}\n": `labels: duplicate key a value of 70 characters`,
	}
	for src, want := range cases {
		_, err := decode(t, src, Options{})
		if err == nil {
			t.Fatalf("%.20q…: no error", src)
		}
		msg := err.Error()
		if strings.Contains(msg, "QvT9s3kVn1bQ") || strings.Contains(msg, "0123456789abcdef") {
			t.Errorf("%.20q…: error carries the secret: %s", src, msg)
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%.20q…: error %q does not say %q", src, msg, want)
		}
	}
	const mint = "So11111111111111111111111111111111111111112"
	if _, err := decode(t, "labels: {"+mint+": [1]}\n", Options{}); err == nil || !strings.Contains(err.Error(), "labels."+mint+":") {
		t.Errorf("a map keyed by an address must name it in full: %v", err)
	}
}
