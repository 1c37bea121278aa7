package signer

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// testPIN is distinctive so that a test can look for it in every error.
const testPIN = "pin-7741-do-not-print"

// noPIN fails t when err's text holds the PIN.
func noPIN(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testPIN) {
		t.Errorf("error shows the PIN: %v", err)
	}
}

func isRefusal(err error, rule Rule) bool {
	r, ok := errors.AsType[*Refusal](err)
	return ok && r.Rule == rule
}

// countingSigner is the fixture wallet's guarded Signer whose key counts
// the signatures asked of it and fails them with fail when set, as a key
// in a token does.
func countingSigner(t *testing.T, fail error) (*Signer, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	priv := ed25519.PrivateKey(slices.Clone(fixture.WalletKey))
	key := &Signer{key: &secret{sign: func(_ context.Context, msg []byte) (solana.Signature, error) {
		asked.Add(1)
		if fail != nil {
			return solana.Signature{}, fail
		}
		return solana.Signature(ed25519.Sign(priv, msg)), nil
	}}}
	key.pub = fixture.Wallet
	s, err := key.WithGuard(fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s, &asked
}

// TestKeyAskedOnlyAfterGuard: a transaction the guard refuses never
// reaches the key (a token is asked for nothing); one it passes does; a key
// that fails to sign fails the whole sequence, nothing returned signed.
func TestKeyAskedOnlyAfterGuard(t *testing.T) {
	s, asked := countingSigner(t, nil)
	if _, err := s.SignTip(solanaGoTip(t, fixture.Wallet, fixture.Stranger, 1000), tipAccounts(), 10_000); !isRefusal(err, RuleSOLTransfer) {
		t.Fatalf("tip to a stranger: %v, want a %s refusal", err, RuleSOLTransfer)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the key was asked for %d signatures of a refused transaction", n)
	}
	if _, err := s.SignTip(solanaGoTip(t, fixture.Wallet, fixture.TipAccounts[0], 1000), tipAccounts(), 10_000); err != nil {
		t.Fatalf("tip: %v", err)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("%d signatures asked of the key, want 1", n)
	}
	failing, _ := countingSigner(t, ErrTokenTimeout)
	tip, err := DecodeMessage(solanaGoTip(t, fixture.Wallet, fixture.TipAccounts[0], 1000))
	if err != nil {
		t.Fatal(err)
	}
	b := Bounds{MaxLamports: 20_000, TipAccounts: tipAccounts(), MaxTip: 10_000}
	signed, err := failing.SignSequence([]*Tx{tip}, KindTip, b)
	if sr, ok := errors.AsType[*SequenceRefusal](err); !ok || sr.Index != 0 || !errors.Is(err, ErrTokenTimeout) || signed != nil {
		t.Errorf("SignSequence with a key that fails: %v, %v; want a SequenceRefusal wrapping %v", signed, err, ErrTokenTimeout)
	}
}

// TestTokenSourceCheck: the settings and the PIN are checked before the
// token is touched; the PIN file is held to a key file's permissions.
func TestTokenSourceCheck(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "libhsm.so")
	pinFile := filepath.Join(dir, "pin")
	if err := os.WriteFile(module, []byte("not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pinFile, []byte(testPIN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := TokenSource{Module: module, TokenLabel: "hsm", KeyLabel: "wallet", PINFile: pinFile}
	pin, err := ok.readPIN()
	if err != nil || string(pin) != testPIN {
		t.Fatalf("readPIN: %q, %v", pin, err)
	}
	slot := uint(0)
	tests := []struct {
		name string
		edit func(*TokenSource)
		want string
	}{
		{"no module", func(s *TokenSource) { s.Module = "" }, "no module"},
		{"missing module", func(s *TokenSource) { s.Module += ".gone" }, "no such file"},
		{"label and slot", func(s *TokenSource) { s.Slot = &slot }, "either a token label or a slot"},
		{"no key", func(s *TokenSource) { s.KeyLabel = "" }, "key label, a key id"},
		{"two PINs", func(s *TokenSource) { s.PIN = testPIN }, "either a PIN file"},
		{"no PIN", func(s *TokenSource) { s.PINFile = "" }, "either a PIN file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ok
			tt.edit(&src)
			err := CheckTokenSource(src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("check: %v, want %q", err, tt.want)
			}
			noPIN(t, err)
		})
	}
	if err := os.Chmod(pinFile, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ok.readPIN(); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a PIN file others can read: %v", err)
	}
	ok.AllowInsecurePermissions = true
	if _, err := ok.readPIN(); err != nil {
		t.Errorf("allowed insecure PIN file: %v", err)
	}
}
