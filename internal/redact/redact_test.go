package redact

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	long := strings.Repeat("0", 60)
	cases := map[string]string{
		"":                                   "",
		"http://127.0.0.1:7070/v1":           "http://127.0.0.1:7070/v1",
		"http://[::1]:7070/v1/":              "http://[::1]:7070/v1/",
		"https://rpc.example/":               "https://rpc.example/",
		"http://127.0.0.1:7071":              "http://127.0.0.1:7071",
		"https://rpc.example/?api-key=abc":   "https://rpc.example/<secret>",
		"https://rpc.example/abc123key":      "https://rpc.example/<secret>",
		"http://127.0.0.1:7070/Tok_74/v1":    "http://127.0.0.1:7070/<secret>",
		"http://localhost:7071/Tok_74":       "http://localhost:7071/<secret>",
		"https://u:p@node.example:8899/tok/": "https://node.example:8899/<secret>",
		"https://u@rpc.example":              "https://rpc.example/<secret>",
		"https://rpc.example/v1#frag":        "https://rpc.example/<secret>",
		"a://" + long:                        "a://<secret>",
		"https://" + long + ".rpc.example":   "https://<secret>.rpc.example",
		"https://" + strings.Repeat("abcdefghi.", 6) + "example": "https://<secret>.abcdefghi.abcdefghi.example",
		"https://acct-name.solana-mainnet.quiknode.pro/tok/":     "https://acct-name.solana-mainnet.quiknode.pro/<secret>",
		"http://[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]:8899":   "http://[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]:8899",
		"::not a url": Marker,
		"not a url":   Marker,
		"://x":        Marker,
	}
	for in, want := range cases {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSecretsHideEveryPart quotes a URL with a secret in each part the way clients quote URLs
// (whole, extended by a route, escaped, each part alone) and shows none of them left.
func TestSecretsHideEveryPart(t *testing.T) {
	const raw = "https://UserTok_11:PassTok_22@" + "host.example:8899/PathTok_33/v1?api-key=QueryTok_44&x=a+b#FragTok_55"
	parts := []string{"UserTok_11", "PassTok_22", "PathTok_33", "QueryTok_44", "FragTok_55"}
	s := Of(raw)
	u, _ := url.Parse(raw)
	quoted := []string{
		raw,
		fmt.Sprintf("Post %q: dial tcp: connection refused", raw),
		fmt.Sprintf("Get %q: EOF", strings.Replace(raw, "/v1?", "/v1/loans?", 1)),
		u.Redacted(),
		url.QueryEscape(raw),
		strings.Join(parts, " "),
	}
	for _, q := range quoted {
		got := s.Text(q)
		for _, p := range parts {
			if strings.Contains(got, p) {
				t.Errorf("Text(%q) = %q: %s left", q, got, p)
			}
		}
	}
	err := s.Error(errors.New(quoted[1]))
	if strings.Contains(err.Error(), "PathTok_33") || !strings.Contains(err.Error(), "host.example:8899") {
		t.Errorf("Error = %v, want the path hidden and the host kept", err)
	}
	if s.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

// TestSecretsLeaveWordsAlone shows short parts and the shown /v1 root left in the text.
func TestSecretsLeaveWordsAlone(t *testing.T) {
	s := Of("http://127.0.0.1:7070/v1", "https://rpc.example/api?x=1")
	const msg = "GET /v1/loans on api: x = 1"
	if got := s.Text(msg); got != msg {
		t.Errorf("Text(%q) = %q", msg, got)
	}
	if got := s.With("AuthValue42").Text("echo AuthValue42"); got != "echo "+Marker {
		t.Errorf("With: %q", got)
	}
	if s.With("AuthValue42").Longest() < len("http://127.0.0.1:7070/v1") {
		t.Error("Longest is not the longest secret")
	}
}

// TestSecretsHideHiddenHostLabels: what URL hides of a host, Text hides too.
func TestSecretsHideHiddenHostLabels(t *testing.T) {
	const account = "acct0123456789abcdef0123456789abcdef"
	s := Of("https://" + account + ".rpc.example/")
	if got := s.Text("dial tcp: lookup " + account + ".rpc.example: no such host"); strings.Contains(got, account) {
		t.Errorf("Text left the hidden label: %q", got)
	}
}
