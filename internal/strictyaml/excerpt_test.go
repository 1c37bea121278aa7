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
