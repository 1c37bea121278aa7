package signer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer/internal/p11"
)

// DefaultTokenTimeout bounds each call to a PKCS#11 token when
// [TokenSource].Timeout is zero.
const DefaultTokenTimeout = 5 * time.Second

// TokenSource says where [LoadToken] finds a key held in a PKCS#11 token
// (PKCS#11 3.0: an Ed25519 key, CKK_EC_EDWARDS, signing with CKM_EDDSA). The
// private key never leaves the token: the Signer asks the token for every
// signature.
type TokenSource struct {
	// Module is the path of the token's PKCS#11 library (a .so file).
	Module string
	// TokenLabel picks the token by its label; Slot picks it by slot id
	// instead. Exactly one of them is set.
	TokenLabel string
	Slot       *uint
	// KeyLabel and KeyID pick the private key by its CKA_LABEL and CKA_ID
	// (raw bytes); at least one is set, and both must match when both are.
	KeyLabel string
	KeyID    []byte
	// PINFile is a file holding the user PIN (surrounding whitespace
	// ignored), refused when group or others may read it unless
	// AllowInsecurePermissions; PIN is the PIN itself, taken from the
	// environment by the caller. Exactly one of them is set.
	PINFile                  string
	PIN                      string
	AllowInsecurePermissions bool
	// Timeout bounds each call to the token (opening a session and logging
	// in, finding the key, one signature); DefaultTokenTimeout when zero. A
	// call that passes it is abandoned and its session dropped.
	Timeout time.Duration
}

// Errors of a token key, for errors.Is. They never carry the PIN or text the
// library produced: a library's failure is named by its PKCS#11 return value.
var (
	// ErrTokenNeedsCgo: this keeper was built without cgo, which the
	// PKCS#11 key source needs to load the token's library.
	ErrTokenNeedsCgo = p11.ErrNeedsCgo
	// ErrTokenAbsent: no token with the configured label or slot is present.
	ErrTokenAbsent = p11.ErrAbsent
	// ErrTokenPIN: the token refused the PIN, or the PIN is locked or expired.
	ErrTokenPIN = p11.ErrPIN
	// ErrTokenKeyNotFound: no private key, or not exactly one, matches the
	// configured label and id, or its public key object is missing.
	ErrTokenKeyNotFound = p11.ErrKeyNotFound
	// ErrTokenNotEd25519: the key is not an Ed25519 key (CKK_EC_EDWARDS on
	// the edwards25519 curve).
	ErrTokenNotEd25519 = p11.ErrNotEd25519
	// ErrTokenKeyChanged: after a session was re-opened, the key found has a
	// different public key from the one read at start.
	ErrTokenKeyChanged = p11.ErrKeyChanged
	// ErrTokenTimeout: the token did not answer a call within the timeout,
	// or is still busy with an earlier call that passed its own.
	ErrTokenTimeout = p11.ErrTimeout
	// ErrTokenBadSignature: the token's signature does not verify against
	// its public key; it is not used.
	ErrTokenBadSignature = p11.ErrBadSignature
	// ErrTokenClosed: the Signer was closed.
	ErrTokenClosed = p11.ErrClosed
)

// LoadToken opens the token src names, logs in, finds the key pair, reads
// the public key and returns a Signer without a guard (see
// [Signer.WithGuard]) that has the token make every signature. Each call to
// the token is bounded by src.Timeout and by ctx. Close releases the token.
// Errors name the module, token and key as configured, never the PIN.
func LoadToken(ctx context.Context, src TokenSource) (*Signer, error) {
	if err := src.check(); err != nil {
		return nil, err
	}
	pin, err := src.readPIN()
	if err != nil {
		return nil, src.errorf("%w", err)
	}
	k, err := p11.Open(ctx, p11.Config{Module: src.Module, TokenLabel: src.TokenLabel, Slot: src.Slot, KeyLabel: src.KeyLabel,
		KeyID: src.KeyID, Timeout: src.timeout()}, pin)
	if err != nil {
		return nil, src.errorf("%w", err)
	}
	return tokenSigner(src, k), nil
}

// tokenSigner is the Signer of k, which has the token sign; its errors
// name src.
func tokenSigner(src TokenSource, k *p11.Key) *Signer {
	sign := func(ctx context.Context, msg []byte) (solana.Signature, error) {
		raw, err := k.Sign(ctx, msg)
		if err != nil {
			return solana.Signature{}, src.errorf("sign: %w", err)
		}
		return solana.Signature(raw), nil
	}
	s := &Signer{key: &secret{sign: sign, close: k.Close}}
	copy(s.pub[:], k.Public())
	return s
}

// CheckTokenSource checks src as far as it can without the token: the
// settings, the module file, the PIN's file or value, and that this build
// can load a PKCS#11 module at all. `keeper check` runs it; opening the
// token is for `keeper check --online` ([LoadToken]).
func CheckTokenSource(src TokenSource) error {
	if err := src.check(); err != nil {
		return err
	}
	if !p11.Cgo {
		return src.errorf("%w", ErrTokenNeedsCgo)
	}
	pin, err := src.readPIN()
	clear(pin)
	if err != nil {
		return src.errorf("%w", err)
	}
	return nil
}

// check validates src's settings and the module file.
func (src TokenSource) check() error {
	switch {
	case src.Module == "":
		return errors.New("signer: pkcs11: no module (the token's PKCS#11 library) given")
	case (src.TokenLabel == "") == (src.Slot == nil):
		return src.errorf("set either a token label or a slot")
	case src.KeyLabel == "" && len(src.KeyID) == 0:
		return src.errorf("set a key label, a key id or both")
	case (src.PINFile == "") == (src.PIN == ""):
		return src.errorf("set either a PIN file or a PIN from the environment")
	case src.Timeout < 0:
		return src.errorf("negative timeout %s", src.Timeout)
	}
	info, err := os.Stat(src.Module)
	if err != nil {
		return src.errorf("module: %w", pathError(err))
	}
	if !info.Mode().IsRegular() {
		return src.errorf("module: not a regular file")
	}
	return nil
}

// readPIN returns the PIN from its file or the value given; the caller
// clears it.
func (src TokenSource) readPIN() ([]byte, error) {
	if src.PINFile == "" {
		return []byte(src.PIN), nil
	}
	p, err := expandHome(src.PINFile)
	if err != nil {
		return nil, fmt.Errorf("PIN file %s: %w", src.PINFile, err)
	}
	b, err := readKeyFile(p, src.AllowInsecurePermissions)
	if err != nil {
		return nil, fmt.Errorf("PIN file %s: %w", p, pathError(err))
	}
	pin := bytes.Clone(bytes.TrimSpace(b))
	clear(b)
	if len(pin) == 0 {
		return nil, fmt.Errorf("PIN file %s is empty", p)
	}
	return pin, nil
}

// pathError keeps an *os.PathError's failure without repeating the path.
func pathError(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

// where names the token and key as configured, for errors.
func (src TokenSource) where() string {
	token := fmt.Sprintf("token %q", src.TokenLabel)
	if src.Slot != nil {
		token = fmt.Sprintf("slot %d", *src.Slot)
	}
	key := fmt.Sprintf("key %q", src.KeyLabel)
	switch {
	case src.KeyLabel == "":
		key = fmt.Sprintf("key id %x", src.KeyID)
	case len(src.KeyID) > 0:
		key += fmt.Sprintf(" (id %x)", src.KeyID)
	}
	return fmt.Sprintf("module %s, %s, %s", src.Module, token, key)
}

// errorf is an error of the key source src, naming it.
func (src TokenSource) errorf(format string, args ...any) error {
	return fmt.Errorf("signer: pkcs11 (%s): "+format, append([]any{src.where()}, args...)...)
}

// timeout is the bound of one call to the token.
func (src TokenSource) timeout() time.Duration {
	if src.Timeout == 0 {
		return DefaultTokenTimeout
	}
	return src.Timeout
}
