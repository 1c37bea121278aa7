package signer

import (
	"bytes"
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/json"
	"errors"
)

// Errors of key parsing. They describe the problem without quoting input.
var (
	errKeyEmpty    = errors.New("key is empty")
	errKeyJSON     = errors.New("key is not a JSON array of 64 integers between 0 and 255")
	errKeyBase58   = errors.New("key is neither a JSON array nor valid base58 text")
	errKeyLength   = errors.New("key does not hold 64 bytes (32-byte seed followed by the 32-byte public key)")
	errKeyMismatch = errors.New("key's public half does not match its secret half")
)

// parseSecret reads a 64-byte ed25519 keypair from a JSON array (Solana CLI
// format) or base58 text, surrounding whitespace ignored. It checks that the
// stored public half belongs to the seed. Scratch copies are cleared.
func parseSecret(b []byte) (*Signer, error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return nil, errKeyEmpty
	}
	var key []byte
	var err error
	if t[0] == '[' {
		key, err = parseJSONKey(t)
	} else {
		key, err = parseBase58Key(t)
	}
	if err != nil {
		return nil, err
	}
	defer clear(key)
	if len(key) != ed25519.PrivateKeySize {
		return nil, errKeyLength
	}
	priv := ed25519.NewKeyFromSeed(key[:ed25519.SeedSize])
	if subtle.ConstantTimeCompare(priv[ed25519.SeedSize:], key[ed25519.SeedSize:]) != 1 {
		clear(priv)
		return nil, errKeyMismatch
	}
	return newSigner(priv), nil
}

// parseJSONKey decodes a JSON array of byte values. The decoder's own errors
// are dropped: they can quote a piece of the input.
func parseJSONKey(t []byte) ([]byte, error) {
	var nums []int64
	if err := json.Unmarshal(t, &nums); err != nil {
		clear(nums)
		return nil, errKeyJSON
	}
	defer clear(nums)
	if len(nums) != ed25519.PrivateKeySize {
		return nil, errKeyLength
	}
	key := make([]byte, len(nums))
	for i, n := range nums {
		if n < 0 || n > 255 {
			clear(key)
			return nil, errKeyJSON
		}
		key[i] = byte(n)
	}
	return key, nil
}

func parseBase58Key(t []byte) ([]byte, error) {
	key, ok := decodeBase58(t)
	if !ok {
		return nil, errKeyBase58
	}
	return key, nil
}
