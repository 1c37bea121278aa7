package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testTokenPIN = "7741-9930-pin"

func loadText(t *testing.T, text string) (*Config, error) {
	t.Helper()
	env := func(k string) (string, bool) {
		if k == "KEEPER_PIN" {
			return testTokenPIN, true
		}
		return "", false
	}
	// The journal's folder must exist when a config loads: an in-memory journal has none.
	return Load("c.yaml", "/etc/keeper", []byte("policies: [p/*.yaml]\nmarket: {program_id: SimMarket1111111111111111111111111111111111}\n"+text+"\njournal: {dsn: \"sqlite::memory:\"}\n"), env)
}

func TestPKCS11Config(t *testing.T) {
	c, err := loadText(t, "signer:\n  pkcs11:\n    module: lib/libsofthsm2.so\n    token_label: keeper\n    key_label: wallet\n"+
		"    key_id: 0a01\n    pin: ${KEEPER_PIN}\n")
	if err != nil {
		t.Fatal(err)
	}
	p := c.Signer.PKCS11
	if p == nil || p.Module != filepath.FromSlash("/etc/keeper/lib/libsofthsm2.so") || p.PIN.Reveal() != testTokenPIN ||
		p.Timeout != DefaultTokenTimeout || string(p.KeyIDBytes()) != "\x0a\x01" {
		t.Fatalf("pkcs11 = %+v", p)
	}
	if c.Signer.Keypair != "" || !c.Signer.HasKey() {
		t.Errorf("the token must replace the default keypair: %+v", c.Signer)
	}
	js := fmt.Sprintf("%v %+v %#v", c.Signer, *p, *p) + c.Dump()
	if strings.Contains(js, testTokenPIN) {
		t.Errorf("the PIN is printed:\n%s", js)
	}
	c, err = loadText(t, "signer: {pkcs11: {module: /m.so, slot: 0, key_id: \"01\", pin_file: pin, timeout: 2s}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Signer.PKCS11; *p.Slot != 0 || p.PINFile != filepath.FromSlash("/etc/keeper/pin") || p.Timeout != 2*time.Second {
		t.Errorf("pkcs11 = %+v", p)
	}
}

func TestPKCS11ConfigErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"inline PIN", "signer: {pkcs11: {module: /m.so, token_label: t, key_label: k, pin: \"" + testTokenPIN + "\"}}\n",
			"c.yaml:3:69: signer.pkcs11.pin must be an environment variable written as ${NAME}"},
		{"PIN around a reference", "signer: {pkcs11: {module: /m.so, token_label: t, key_label: k, pin: \"x${KEEPER_PIN}\"}}\n",
			"signer.pkcs11.pin must be an environment variable"},
		{"no PIN", "signer: {pkcs11: {module: /m.so, token_label: t, key_label: k}}\n", "set exactly one of pin (as ${NAME}) and pin_file"},
		{"two PINs", "signer: {pkcs11: {module: /m.so, token_label: t, key_label: k, pin: \"${KEEPER_PIN}\", pin_file: p}}\n",
			"set exactly one of pin"},
		{"no module", "signer: {pkcs11: {token_label: t, key_label: k, pin_file: p}}\n", "signer.pkcs11.module is required"},
		{"label and slot", "signer: {pkcs11: {module: /m.so, token_label: t, slot: 1, key_label: k, pin_file: p}}\n",
			"set exactly one of token_label and slot"},
		{"no key", "signer: {pkcs11: {module: /m.so, token_label: t, pin_file: p}}\n", "set key_label, key_id or both"},
		{"bad id", "signer: {pkcs11: {module: /m.so, token_label: t, key_id: xyz, pin_file: p}}\n", "key_id must be hex digits"},
		{"long timeout", "signer: {pkcs11: {module: /m.so, token_label: t, key_label: k, pin_file: p, timeout: 2m}}\n",
			"signer.pkcs11.timeout must be positive and at most 1m0s"},
		{"keypair too", "signer: {keypair: k.json, pkcs11: {module: /m.so, token_label: t, key_label: k, pin_file: p}}\n",
			"set only one of keypair, secret_env, secret_file and pkcs11"},
		{"unknown key", "signer: {pkcs11: {module: /m.so, token: t, key_label: k, pin_file: p}}\n", `unknown field "token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(t, tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("load: %v\nwant %q", err, tt.want)
			}
			if strings.Contains(err.Error(), testTokenPIN) {
				t.Errorf("error shows the PIN: %v", err)
			}
		})
	}
}
