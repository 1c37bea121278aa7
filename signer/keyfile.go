package signer

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Generate returns a Signer with a fresh random key, for simulations and
// tests. It has no guard yet (see [Signer.WithGuard]).
func Generate() (*Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("signer: generate key: %w", err)
	}
	return newSigner(priv), nil
}

// WriteKeypairFile saves the key at path as a Solana CLI keypair file (a JSON
// array of the 64 key bytes) with mode 0600. It never overwrites: an existing
// file is an error. "~/" is expanded as in [KeySource].
func (s *Signer) WriteKeypairFile(path string) error {
	if s.key == nil {
		return errNoKey
	}
	if s.key.keypairJSON == nil {
		return errors.New("signer: write keypair file: the key is held in a token and never leaves it")
	}
	p, err := expandHome(path)
	if err != nil {
		return fmt.Errorf("signer: write keypair file %s: %w", path, err)
	}
	if err := writeNewFile(p, s.key.keypairJSON()); err != nil {
		return fmt.Errorf("signer: write keypair file %s: %w", p, err)
	}
	return nil
}

// keypairJSON renders priv in the Solana CLI format. The caller clears it.
func keypairJSON(priv ed25519.PrivateKey) []byte {
	b := make([]byte, 0, 4*len(priv)+2)
	b = append(b, '[')
	for i, v := range priv {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(v), 10)
	}
	return append(b, ']')
}

// writeNewFile creates path exclusively with mode 0600, writes b, syncs and
// closes; on failure it removes what it created. It clears b.
func writeNewFile(path string, b []byte) (err error) {
	defer clear(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.Remove(path))
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return errors.Join(err, f.Close())
	}
	if _, err := f.Write(b); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := f.Sync(); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}
