//go:build cgo

package signer

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim/softhsm"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// softSource is the key source of key in tk, its PIN from the PIN file.
func softSource(tk *softhsm.Token, k softhsm.Key) TokenSource {
	return TokenSource{Module: tk.Module, TokenLabel: tk.Label, KeyLabel: k.Label, KeyID: k.ID, PINFile: tk.PINFile}
}

// armedToken loads key from tk and arms it with the corpus's guard; both
// close when the test ends.
func armedToken(t *testing.T, tk *softhsm.Token, key softhsm.Key) *Signer {
	t.Helper()
	s, err := LoadToken(t.Context(), softSource(tk, key))
	if err != nil {
		t.Fatalf("LoadToken: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	armed, err := s.WithGuard(fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	return armed
}

// TestSoftHSMSigns: keeper reads the public key from a real token (SoftHSM
// 2, the key made by pkcs11-tool), and the token's signatures of a guarded
// tip transaction verify against it; a refused one is never signed.
func TestSoftHSMSigns(t *testing.T) {
	tk := softhsm.New(t)
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	s := armedToken(t, tk, key)
	if !ed25519.PublicKey(s.PublicKey().Bytes()).Equal(key.Public) {
		t.Fatalf("public key %s, pkcs11-tool made %x", s.PublicKey(), key.Public)
	}
	msg := solanaGoTip(t, s.PublicKey(), fixture.TipAccounts[0], 5000)
	signed, err := s.SignTip(msg, tipAccounts(), 10_000)
	if err != nil {
		t.Fatalf("SignTip: %v", err)
	}
	if !ed25519.Verify(key.Public, msg, signed.Signature[:]) {
		t.Error("the token's signature does not verify against the key pkcs11-tool made")
	}
	if _, err := DecodeWire(signed.Base64()); err != nil {
		t.Errorf("the signed wire transaction does not decode and verify: %v", err)
	}
	if _, err := s.SignTip(solanaGoTip(t, s.PublicKey(), fixture.Stranger, 5000), tipAccounts(), 10_000); !isRefusal(err, RuleSOLTransfer) {
		t.Errorf("tip to a stranger: %v, want a %s refusal", err, RuleSOLTransfer)
	}
	if err := s.WriteKeypairFile(filepath.Join(t.TempDir(), "k.json")); err == nil {
		t.Error("a key held in a token was written to a file")
	}
	if text := fmt.Sprintf("%v %+v %#v %s", s, s, s, s) + fmt.Sprintf("%+v %#v", *s.key, s.key); strings.Contains(text, tk.PIN) {
		t.Errorf("formatting shows the PIN: %s", text)
	}
}

// TestSoftHSMFailures: a real token's failures at start are named, never
// with the PIN: a wrong PIN, a key that is not there, a key that is not
// Ed25519, a token that is not there.
func TestSoftHSMFailures(t *testing.T) {
	tk := softhsm.New(t)
	ed := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	p256 := tk.AddKey(t, "EC:prime256v1", "p256", []byte{2})
	tests := []struct {
		name string
		edit func(*TokenSource)
		want error
	}{
		{"wrong PIN", func(s *TokenSource) { s.PINFile, s.PIN = "", "0000-0000" }, ErrTokenPIN},
		{"key not found", func(s *TokenSource) { s.KeyLabel, s.KeyID = "nope", nil }, ErrTokenKeyNotFound},
		{"id of another key", func(s *TokenSource) { s.KeyID = p256.ID }, ErrTokenKeyNotFound},
		{"not Ed25519", func(s *TokenSource) { s.KeyLabel, s.KeyID = p256.Label, p256.ID }, ErrTokenNotEd25519},
		{"token absent", func(s *TokenSource) { s.TokenLabel = "no-such-token" }, ErrTokenAbsent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := softSource(tk, ed)
			tt.edit(&src)
			s, err := LoadToken(t.Context(), src)
			if err == nil {
				_ = s.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("LoadToken: %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), tk.PIN) || strings.Contains(err.Error(), "0000-0000") {
				t.Errorf("error shows a PIN: %v", err)
			}
		})
	}
}

// TestSoftHSMTokenGone: a token taken away from a running key (deleted)
// fails the next signature as absent, after one try with a new session,
// and nothing is signed.
func TestSoftHSMTokenGone(t *testing.T) {
	tk := softhsm.New(t)
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	s := armedToken(t, tk, key)
	tk.Delete(t)
	signed, err := s.SignTip(solanaGoTip(t, s.PublicKey(), fixture.TipAccounts[0], 5000), tipAccounts(), 10_000)
	if !errors.Is(err, ErrTokenAbsent) || signed != nil {
		t.Fatalf("SignTip with the token gone: %v, %v; want %v and nothing signed", signed, err, ErrTokenAbsent)
	}
	if strings.Contains(err.Error(), tk.PIN) {
		t.Errorf("error shows the PIN: %v", err)
	}
}

// BenchmarkTokenSign measures one signature of a 1232-byte message (a full
// packet) by a SoftHSM 2 token through the token key: the goroutine and
// deadline of the call, C_SignInit and C_Sign, and the check of the
// signature against the public key. BenchmarkMemorySign is the same message
// signed by a key in memory, for comparison.
func BenchmarkTokenSign(b *testing.B) {
	tk := softhsm.New(b)
	key := tk.AddKey(b, "EC:edwards25519", "wallet", []byte{1})
	src := TokenSource{Module: tk.Module, TokenLabel: tk.Label, KeyID: key.ID, PIN: tk.PIN}
	s, err := LoadToken(b.Context(), src)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	benchmarkSign(b, s)
}

// BenchmarkMemorySign: see BenchmarkTokenSign.
func BenchmarkMemorySign(b *testing.B) {
	s, err := Generate()
	if err != nil {
		b.Fatal(err)
	}
	benchmarkSign(b, s)
}

func benchmarkSign(b *testing.B, s *Signer) {
	msg := make([]byte, 1232)
	for b.Loop() {
		if _, err := s.key.sign(b.Context(), msg); err != nil {
			b.Fatal(err)
		}
	}
}
