package signer

import (
	"context"
	"crypto/ed25519"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// Signer holds one wallet key. It signs only through the guard and never
// shows its secret: String, Format, GoString, LogValue, MarshalJSON and
// MarshalText all show the public key only. It is safe for concurrent use:
// it is never modified after construction.
type Signer struct {
	identity         // the public key, and how the Signer shows itself (redact.go)
	key      *secret // always non-nil for a Signer built by this package
	guard    *guard  // nil until WithGuard: Sign then refuses
}

// identity is the public side of a Signer: its wallet's public key, which is
// all that String, Format, GoString, LogValue, MarshalJSON and MarshalText
// show of it.
type identity struct {
	pub solana.PublicKey
}

// errNoKey is returned by a zero Signer, which holds no key.
var errNoKey = errors.New("signer: no key; build the Signer with Load or Generate")

// secret holds the private key, or the handle of a key held in a PKCS#11
// token and its PIN, only inside closures. Reflection cannot look into a
// closure, so no fmt verb (not even fmt's bad-verb path, which prints pointer
// targets), slog handler, JSON encoder or dumper can reach the bytes: they see
// function addresses at most. The type also redacts itself.
type secret struct {
	// sign signs msg; only a token's key can fail or be bounded by ctx.
	sign func(ctx context.Context, msg []byte) (solana.Signature, error)
	// keypairJSON renders the key in the Solana CLI file format (the caller
	// clears it); nil for a key held in a token, which never leaves it.
	keypairJSON func() []byte
	// close releases the token's session and module; nil for a key in memory.
	close func() error
}

// newSigner builds a Signer from a 64-byte ed25519 private key, taking
// ownership of priv.
func newSigner(priv ed25519.PrivateKey) *Signer {
	s := &Signer{key: &secret{
		sign: func(_ context.Context, msg []byte) (solana.Signature, error) {
			var sig solana.Signature
			copy(sig[:], ed25519.Sign(priv, msg))
			return sig, nil
		},
		keypairJSON: func() []byte { return keypairJSON(priv) },
	}}
	copy(s.pub[:], priv.Public().(ed25519.PublicKey))
	return s
}

// PublicKey returns the wallet's public key.
func (id identity) PublicKey() solana.PublicKey { return id.pub }

// WithGuard returns a Signer that shares this one's key and signs under cfg.
// The receiver is unchanged, so a reload can build a new guarded Signer and
// swap it in while the old one is still in use.
func (s *Signer) WithGuard(cfg GuardConfig) (*Signer, error) {
	if s.key == nil {
		return nil, errNoKey
	}
	g, err := compileGuard(cfg, s.pub)
	if err != nil {
		return nil, err
	}
	return &Signer{identity: s.identity, key: s.key, guard: g}, nil
}

// Close releases what the key holds outside the process: for a key in a
// PKCS#11 token, its session and (when no other Signer uses it) the module.
// Every Signer that WithGuard made from the same key shares it and cannot
// sign after Close. It is a no-op for a key in memory.
func (s *Signer) Close() error {
	if s.key == nil || s.key.close == nil {
		return nil
	}
	return s.key.close()
}
