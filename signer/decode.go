package signer

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// APISignature is one entry of the API's signatures array: a required
// signer's base58 public key and its signature, base64 or base58.
type APISignature struct {
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
}

// DecodeAPITransaction decodes a transaction object built by the market API.
//
// message is the serialized legacy or v0 message in base64; base58 is
// accepted as a fallback and [Tx.Encoding] says which was found. Text that
// uses only base58 digits is tried both ways, and refused if both readings
// parse. Each signature is placed by its public key among the required
// signers and verified over the exact message bytes: a key that is not a
// required signer is refused with [RuleUnknownSigner], a signature that does
// not verify with [RuleBadSignature]. An all-zero signature is an unsigned
// placeholder and leaves its slot empty.
func DecodeAPITransaction(message string, sigs []APISignature) (*Tx, error) {
	raw, m, enc, err := decodeMessageText(message)
	if err != nil {
		return nil, err
	}
	tx := newTx(raw, m, enc, FormMessage)
	for i, s := range sigs {
		slot, sig, err := s.locate(m)
		if err == nil {
			err = tx.sigs.set(slot, sig, m.keys[slot], raw)
		}
		if err != nil {
			return nil, decodeErr(fmt.Sprintf("api signature %d", i), err)
		}
	}
	return tx, nil
}

// DecodeMessage decodes raw message bytes, for example a tip message keeper
// built itself. Every signature slot starts empty. The Tx keeps its own copy,
// so later changes to raw cannot change what is signed.
func DecodeMessage(raw []byte) (*Tx, error) {
	raw = slices.Clone(raw)
	m, err := parseMessage(raw)
	if err != nil {
		return nil, fmt.Errorf("signer: decode message: %w", err)
	}
	return newTx(raw, m, EncodingBytes, FormMessage), nil
}

// decodeMessageText detects base64 or base58 and parses the message.
func decodeMessageText(s string) ([]byte, *message, Encoding, error) {
	if s == "" {
		return nil, nil, "", fmt.Errorf("signer: decode message: %w: empty message", ErrMalformed)
	}
	raw64, m64, err64 := parseBase64Message(s)
	if !isBase58Text(s) {
		if err64 != nil {
			return nil, nil, "", fmt.Errorf("signer: decode base64 message: %w", err64)
		}
		return raw64, m64, EncodingBase64, nil
	}
	raw58, m58, err58 := parseBase58Message(s)
	switch {
	case err64 == nil && err58 == nil:
		return nil, nil, "", fmt.Errorf("signer: decode message: %w: text parses both as base64 and as base58", ErrMalformed)
	case err64 == nil:
		return raw64, m64, EncodingBase64, nil
	case err58 == nil:
		return raw58, m58, EncodingBase58, nil
	}
	return nil, nil, "", fmt.Errorf("signer: decode message: neither base64 (%w) nor base58 (%w)", err64, err58)
}

func parseBase64Message(s string) ([]byte, *message, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	m, err := parseMessage(raw)
	return raw, m, err
}

func parseBase58Message(s string) ([]byte, *message, error) {
	raw, ok := decodeBase58(s)
	if !ok {
		return nil, nil, fmt.Errorf("%w: not base58 text", ErrMalformed)
	}
	m, err := parseMessage(raw)
	return raw, m, err
}

// decodeErr wraps err with where it happened, except a Refusal, which
// already says where and is returned as is.
func decodeErr(where string, err error) error {
	if _, ok := errors.AsType[*Refusal](err); ok {
		return err
	}
	return fmt.Errorf("signer: %s: %w", where, err)
}

// locate decodes the signature and finds its slot among m's required
// signers. A zero signature is an unsigned placeholder, returned as is.
func (s APISignature) locate(m *message) (int, solana.Signature, error) {
	pk, err := solana.PublicKeyFromBase58(s.PublicKey)
	if err != nil {
		return 0, solana.Signature{}, fmt.Errorf("%w: public key %q: %w", ErrMalformed, s.PublicKey, err)
	}
	slot := m.signerIndex(pk)
	if slot < 0 {
		return 0, solana.Signature{}, refuse(RuleUnknownSigner, "signature for %s, which is not a required signer of the message", pk)
	}
	sig, err := decodeSignature(s.Signature)
	if err != nil {
		return 0, solana.Signature{}, fmt.Errorf("signature for %s: %w", pk, err)
	}
	return slot, sig, nil
}

// slots are a transaction's signatures, one per required signer; a zero
// slot is unsigned.
type slots []solana.Signature

// set verifies sig by key over msg and stores it in slot; a slot already
// holding another signature is refused. A zero sig leaves the slot as it is.
func (s slots) set(slot int, sig solana.Signature, key solana.PublicKey, msg []byte) error {
	if sig.IsZero() {
		return nil
	}
	if !ed25519.Verify(key[:], msg, sig[:]) {
		return refuse(RuleBadSignature, "signature in slot %d for %s does not verify over the message", slot, key)
	}
	if !s[slot].IsZero() && s[slot] != sig {
		return refuse(RuleBadSignature, "two different signatures for %s", key)
	}
	s[slot] = sig
	return nil
}

// errSignatureEncoding reports a signature that is neither 64 bytes of base64
// nor of base58.
var errSignatureEncoding = errors.New("signature is neither base64 nor base58 of 64 bytes")

// decodeSignature reads a 64-byte signature in base64 or base58. The two
// cannot be confused: base64 of 64 bytes always ends in "==", which base58
// never contains.
func decodeSignature(s string) (solana.Signature, error) {
	var sig solana.Signature
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == len(sig) {
		copy(sig[:], b)
		return sig, nil
	}
	if b, ok := decodeBase58(s); ok && len(b) == len(sig) {
		copy(sig[:], b)
		return sig, nil
	}
	return sig, fmt.Errorf("%w: %w", ErrMalformed, errSignatureEncoding)
}
