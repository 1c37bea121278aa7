package keeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/signer"
)

// loadKey loads the configured key, without a guard: from a PKCS#11 token
// when signer.pkcs11 is set (the token reads out its public key and makes
// every signature), else from the key file or environment variable.
func loadKey(c *config.Config) (*signer.Signer, error) {
	if c.Signer.PKCS11 != nil {
		return signer.LoadToken(context.Background(), tokenSource(c.Signer)) // each call to the token has its deadline
	}
	src := signer.KeySource{Path: c.Signer.Keypair, Env: c.Signer.SecretEnv, AllowInsecurePermissions: c.Signer.AllowInsecurePermissions}
	if c.Signer.SecretFile != "" {
		src.Path = c.Signer.SecretFile
	}
	return signer.Load(src)
}

// tokenSource is the signer's form of signer.pkcs11.
func tokenSource(s config.Signer) signer.TokenSource {
	p := s.PKCS11
	return signer.TokenSource{Module: p.Module, TokenLabel: p.TokenLabel, Slot: p.Slot, KeyLabel: p.KeyLabel, KeyID: p.KeyIDBytes(),
		PIN: p.PIN.Reveal(), PINFile: p.PINFile, AllowInsecurePermissions: s.AllowInsecurePermissions, Timeout: p.Timeout}
}

// TokenWallet opens the token signer.pkcs11 names, reads its key's public
// key and closes it; it signs nothing. With signer.pubkey set, a different
// key is an error that also returns the token's key, for `keeper pubkey`
// to print during a rotation.
func TokenWallet(ctx context.Context, c *config.Config) (solana.PublicKey, error) {
	if c.Signer.PKCS11 == nil {
		return solana.PublicKey{}, errors.New("keeper: signer.pkcs11 is not configured")
	}
	s, err := signer.LoadToken(ctx, tokenSource(c.Signer))
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("keeper: %w", err)
	}
	pk := s.PublicKey()
	if err := s.Close(); err != nil {
		return pk, fmt.Errorf("keeper: close the token: %w", err)
	}
	if want := c.Signer.PublicKey; want != "" && pk.String() != want {
		return pk, fmt.Errorf("keeper: signer.pubkey %s is not the public key of the token's key (%s)", want, pk)
	}
	return pk, nil
}

// checkTokenOffline checks signer.pkcs11 without opening the token: the
// module file, the PIN file or variable, and that this build can load a
// PKCS#11 library. `keeper check --online` opens the token (TokenWallet).
func checkTokenOffline(c *config.Config) error {
	if err := signer.CheckTokenSource(tokenSource(c.Signer)); err != nil {
		return fmt.Errorf("keeper: %w", err)
	}
	return nil
}
