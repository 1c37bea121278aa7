package keeper

import (
	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/config"
)

// CheckSigner loads the operator's key from the config exactly as a run does at start (file or
// environment, permissions, length, the public half matching the secret one, the guard's
// settings) and drops it, so that `keeper check` refuses everything `keeper run` would refuse. The
// key never leaves the signer package; errors name the source, never its contents.
func CheckSigner(c *config.Config) error {
	s := c.Signer
	if s.Keypair == "" && s.SecretEnv == "" && s.SecretFile == "" {
		_, err := newSigner(c, true) // read-only: only signer.pubkey to check
		return err
	}
	_, err := loadSigner(c)
	return err
}

// WalletOf returns the wallet's public key as the config gives it:
// signer.pubkey, else the public half of the configured key (loaded and
// dropped).
func WalletOf(c *config.Config) (solana.PublicKey, error) {
	s, err := newSigner(c, c.Signer.PublicKey != "")
	if err != nil {
		return solana.PublicKey{}, err
	}
	return s.PublicKey(), nil
}
