package config

import (
	"strings"
	"testing"
)

// progs completes a config with the program ids it requires.
const progs = "SimMarket1111111111111111111111111111111111}\n" +
	"chain: {dex_a_program: SimDexA111111111111111111111111111111111111, dex_b_program: SimDexB111111111111111111111111111111111111}\n" +
	"policies: [a]\n"

// TestKeyedBaseURLAccepted accepts an API root whose key rides in the query string, as
// docs/configuration.md promises, and keeps the key out of every rendering.
func TestKeyedBaseURLAccepted(t *testing.T) {
	src := "market: {base_url: 'https://api.example.com/v1?key=base-url-secret', program_id: " + progs
	c, err := Load("c.yaml", "", []byte(src), lookup)
	if err != nil {
		t.Fatalf("keyed base_url refused: %v", err)
	}
	if string(c.Market.BaseURL) != "https://api.example.com/v1?key=base-url-secret" {
		t.Errorf("base_url = %q, want it kept whole for requests", c.Market.BaseURL)
	}
	bad := "market: {base_url: 'https://api.example.com/v2?key=base-url-secret', program_id: " + progs
	_, err = Load("c.yaml", "", []byte(bad), lookup)
	if err == nil || strings.Contains(err.Error(), "base-url-secret") {
		t.Errorf("a keyed base_url on /v2: err = %v, want refused without the key", err)
	}
}

// TestErrorsNeverEchoValues feeds files that are not configs (a key file, a DSN with a password, an
// os-release file) and values that carry secrets, and checks that no error quotes them.
func TestErrorsNeverEchoValues(t *testing.T) {
	cases := map[string]struct{ src, secret string }{
		"base58 key file":   {"4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKmNpQrStUvWxYz23456789abcdefghijkmnopqrsx\n", "4wBqpZM9k7tSAWGT"},
		"JSON key file":     {"[174,47,154,16,202,193,206,113,199,190,53,133,169,175,31,56,222,53,138,189,224,216,117,173,10,149,53,45,73,251,237,246]\n", "174,47,154,16"},
		"os-release":        {"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n", "VERSION_ID"},
		"DSN password":      {"journal: {dsn: 'postgres://keeper:dsn-pass-secret@db:5432/keeper'}\npolicies: [a]\n", "dsn-pass-secret"},
		"commitment token":  {"chain: {commitment: 'AAAAsecretlookingtokenvalue0123456789'}\npolicies: [a]\n", "secretlookingtoken"},
		"listen secret":     {"http: {listen: 'tok-abcdefghijklmnopqrstuvwxyz'}\npolicies: [a]\n", "abcdefghijklmnop"},
		"key as a field":    {"market:\n  4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKm : 1\npolicies: [a]\n", "4wBqpZM9k7tSAWGT"},
		"header as a token": {"market: {wallet_header: 'Bearer 4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKm'}\npolicies: [a]\n", "4wBqpZM9k7tSAWGT"},
		"key as a kind":     {"signer: {extra_programs: {4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKm: [x]}}\npolicies: [a]\n", "4wBqpZM9k7tSAWGT"},
		"key as a feed":     {"prices: {feeds: {4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKm: {}}}\npolicies: [a]\n", "4wBqpZM9k7tSAWGT"},
	}
	for name, c := range cases {
		_, err := Load("c.yaml", "", []byte(c.src), lookup)
		if err == nil {
			t.Errorf("%s: loaded, want an error", name)
			continue
		}
		if strings.Contains(err.Error(), c.secret) {
			t.Errorf("%s: error echoes %q:\n%v", name, c.secret, err)
		}
		if !strings.Contains(err.Error(), "c.yaml:") {
			t.Errorf("%s: error does not name its position: %v", name, err)
		}
	}
}

// TestMistypedAddressShowsAsWritten checks that an address one character off is quoted whole (an
// operator must see which one is wrong), while a private key pasted there is not.
func TestMistypedAddressShowsAsWritten(t *testing.T) {
	const typo = "SimMarket111111111111111111111111111111111l" // 'l' is not base58
	src := "market: {program_id: " + typo + "}\npolicies: [a]\n"
	if _, err := Load("c.yaml", "", []byte(src), lookup); err == nil || !strings.Contains(err.Error(), `"`+typo+`" is not a base58 public key`) {
		t.Errorf("error %v does not quote the mistyped address", err)
	}
	const key = "4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKmNpQrStUvWxYz23456789abcdefghijkmnopqrsx"
	src = "market: {program_id: " + key + "}\npolicies: [a]\n"
	if _, err := Load("c.yaml", "", []byte(src), lookup); err == nil || strings.Contains(err.Error(), "4wBqpZM9k7tSAWGT") {
		t.Errorf("a private key as the program id: error %v", err)
	}
}

// TestListenPortInRange refuses a port no socket can bind, as run would when it listens.
func TestListenPortInRange(t *testing.T) {
	for listen, ok := range map[string]bool{"127.0.0.1:99999": false, "127.0.0.1:-1": false, "127.0.0.1:http": false,
		"127.0.0.1:0": true, ":9464": true, "[::1]:65535": true} {
		src := "market: {program_id: " + progs[:len(progs)-len("policies: [a]\n")] + "http: {listen: '" + listen + "'}\npolicies: [a]\n"
		_, err := Load("c.yaml", "", []byte(src), lookup)
		if (err == nil) != ok {
			t.Errorf("http.listen %q: err = %v, want ok %v", listen, err, ok)
		}
	}
}
