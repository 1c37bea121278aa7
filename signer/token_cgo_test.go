//go:build cgo

package signer

import (
	"crypto/ed25519"
	"testing"

	"github.com/keeper-project/keeper/signer/tokentest"
)

// TestSoftHSMSessionLost: a real token's session closed under the key (as
// a token reset or a module restart does) is re-opened, logged in again,
// and the signature made; the key is the one read at start.
func TestSoftHSMSessionLost(t *testing.T) {
	tk := tokentest.New(t)
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	src := TokenSource{Module: tk.Module, TokenLabel: tk.Label, KeyID: key.ID, PIN: tk.PIN}
	mod, err := loadModule(src.Module)
	if err != nil {
		t.Fatal(err)
	}
	k, err := openTokenKey(t.Context(), src, mod, []byte(src.PIN))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.close() })
	lost := k.sess
	lost.close() // the handle is now invalid, and the login ended with the token's last session
	msg := []byte("after the session was lost")
	sig, err := k.sign(t.Context(), msg)
	if err != nil {
		t.Fatalf("sign after the session was lost: %v", err)
	}
	if !ed25519.Verify(key.Public, msg, sig[:]) {
		t.Error("signature does not verify")
	}
	if k.sess == lost || k.sess == nil {
		t.Error("the lost session was not replaced")
	}
}

// BenchmarkTokenSign measures one signature of a 1232-byte message (a full
// packet) by a SoftHSM 2 token through the token key: the goroutine and
// deadline of the call, C_SignInit and C_Sign, and the check of the
// signature against the public key. BenchmarkMemorySign is the same message
// signed by a key in memory, for comparison.
func BenchmarkTokenSign(b *testing.B) {
	tk := tokentest.New(b)
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
