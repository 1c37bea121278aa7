//go:build cgo

package signer_test

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/keeper-project/keeper/signer"
	"github.com/keeper-project/keeper/signer/tokentest"
)

// softSource is the key source of key in tk, its PIN from the PIN file.
func softSource(tk *tokentest.Token, k tokentest.Key) signer.TokenSource {
	return signer.TokenSource{Module: tk.Module, TokenLabel: tk.Label, KeyLabel: k.Label, KeyID: k.ID, PINFile: tk.PINFile}
}

// TestSoftHSMSigns: keeper reads the public key from a real token (SoftHSM
// 2, the key made by pkcs11-tool), and the token's signatures of a guarded
// tip transaction verify against it; a refused one is never signed.
func TestSoftHSMSigns(t *testing.T) {
	tk := tokentest.New(t)
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	s, err := signer.LoadToken(t.Context(), softSource(tk, key))
	if err != nil {
		t.Fatalf("LoadToken: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if !ed25519.PublicKey(s.PublicKey().Bytes()).Equal(key.Public) {
		t.Fatalf("public key %s, pkcs11-tool made %x", s.PublicKey(), key.Public)
	}
	tip := solana.MustPublicKeyFromBase58("96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5")
	armed, err := s.WithGuard(signer.GuardConfig{MarketProgram: "SimMarket1111111111111111111111111111111111"})
	if err != nil {
		t.Fatal(err)
	}
	msg := tipMessage(t, s.PublicKey(), tip, 5000)
	signed, err := armed.SignTip(msg, []string{tip.String()}, 10_000)
	if err != nil {
		t.Fatalf("SignTip: %v", err)
	}
	if !ed25519.Verify(key.Public, msg, signed.Signature[:]) {
		t.Error("the token's signature does not verify against the key pkcs11-tool made")
	}
	if _, err := signer.DecodeWire(signed.Base64()); err != nil {
		t.Errorf("the signed wire transaction does not decode and verify: %v", err)
	}
	stranger := solana.MustPublicKeyFromBase58("11111111111111111111111111111112")
	if _, err := armed.SignTip(tipMessage(t, s.PublicKey(), stranger, 5000), []string{tip.String()}, 10_000); !errors.As(err, new(*signer.Refusal)) {
		t.Errorf("tip to a stranger: %v, want a refusal", err)
	}
}

// tipMessage is a System transfer of lamports from → to, as a message.
func tipMessage(t *testing.T, from, to solana.PublicKey, lamports uint64) []byte {
	t.Helper()
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(lamports, from, to).Build()},
		solana.Hash{1}, solana.TransactionPayer(from))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSoftHSMFailures: a real token's failures at start are named, never
// with the PIN: a wrong PIN, a key that is not there, a key that is not
// Ed25519, a token that is not there.
func TestSoftHSMFailures(t *testing.T) {
	tk := tokentest.New(t)
	ed := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	p256 := tk.AddKey(t, "EC:prime256v1", "p256", []byte{2})
	tests := []struct {
		name string
		edit func(*signer.TokenSource)
		want error
	}{
		{"wrong PIN", func(s *signer.TokenSource) { s.PINFile, s.PIN = "", "0000-0000" }, signer.ErrTokenPIN},
		{"key not found", func(s *signer.TokenSource) { s.KeyLabel, s.KeyID = "nope", nil }, signer.ErrTokenKeyNotFound},
		{"id of another key", func(s *signer.TokenSource) { s.KeyID = p256.ID }, signer.ErrTokenKeyNotFound},
		{"not Ed25519", func(s *signer.TokenSource) { s.KeyLabel, s.KeyID = p256.Label, p256.ID }, signer.ErrTokenNotEd25519},
		{"token absent", func(s *signer.TokenSource) { s.TokenLabel = "no-such-token" }, signer.ErrTokenAbsent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := softSource(tk, ed)
			tt.edit(&src)
			s, err := signer.LoadToken(t.Context(), src)
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
	tk := tokentest.New(t)
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	s, err := signer.LoadToken(t.Context(), softSource(tk, key))
	if err != nil {
		t.Fatalf("LoadToken: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	armed, err := s.WithGuard(signer.GuardConfig{MarketProgram: "SimMarket1111111111111111111111111111111111"})
	if err != nil {
		t.Fatal(err)
	}
	tip := solana.MustPublicKeyFromBase58("96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5")
	tk.Delete(t)
	signed, err := armed.SignTip(tipMessage(t, s.PublicKey(), tip, 5000), []string{tip.String()}, 10_000)
	if !errors.Is(err, signer.ErrTokenAbsent) || signed != nil {
		t.Fatalf("SignTip with the token gone: %v, %v; want %v and nothing signed", signed, err, signer.ErrTokenAbsent)
	}
	if strings.Contains(err.Error(), tk.PIN) {
		t.Errorf("error shows the PIN: %v", err)
	}
}
