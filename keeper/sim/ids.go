package sim

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// The simulator's fixed program ids. The committed config.yaml names them.
var (
	// MarketProgramID is the simulated lending market's program.
	MarketProgramID = solana.MustPublicKeyFromBase58("SimMarket1111111111111111111111111111111111")
	// EarnProgramID is the simulated earn vaults' program (withdrawal claims).
	EarnProgramID = solana.MustPublicKeyFromBase58("SimEarn111111111111111111111111111111111111")
	// DexAProgramID is the simulated dex-a CLMM program (layout A accounts).
	DexAProgramID = solana.MustPublicKeyFromBase58("SimDexA111111111111111111111111111111111111")
	// DexBProgramID is the simulated dex-b CLMM program (layout B accounts).
	DexBProgramID = solana.MustPublicKeyFromBase58("SimDexB111111111111111111111111111111111111")
)

// CoSignerSeedText is the text whose SHA-256 is the ed25519 seed of the market's co-signer key. The
// key is public knowledge on purpose: it only ever signs simulated transactions.
const CoSignerSeedText = "keeper/sim market co-signer v1"

// strangerSeedText seeds the key hostile transactions use as a thief, a foreign fee payer or an extra
// signer.
const strangerSeedText = "keeper/sim stranger v1"

// keyFromSeedText returns the ed25519 key whose seed is sha256(text).
func keyFromSeedText(text string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(text))
	return ed25519.NewKeyFromSeed(seed[:])
}

var (
	coSignerKey = keyFromSeedText(CoSignerSeedText)
	strangerKey = keyFromSeedText(strangerSeedText)
)

// CoSigner returns the public key of the market's co-signer, a read-only signer of every market
// instruction that has already signed every transaction the simulator builds.
func CoSigner() solana.PublicKey { return publicKeyOf(coSignerKey) }

// Stranger returns the public key hostile transactions name as the thief, the foreign fee payer or
// the extra signer.
func Stranger() solana.PublicKey { return publicKeyOf(strangerKey) }

// publicKeyOf returns the solana public key of an ed25519 private key.
func publicKeyOf(k ed25519.PrivateKey) solana.PublicKey {
	return solana.PublicKeyFromBytes(k.Public().(ed25519.PublicKey))
}

// derivedKey returns a deterministic, named address: sha256("keeper/sim " + kind + " " + name).
// It is used for mints, other wallets and position mints, which never sign.
func derivedKey(kind, name string) solana.PublicKey {
	return solana.PublicKeyFromBytes(sha256Bytes("keeper/sim " + kind + " " + name))
}

// sha256Bytes returns the SHA-256 of s.
func sha256Bytes(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// pda returns the program address of seeds under program. Names longer than a seed may be are
// hashed first, so any scenario name works.
func pda(program solana.PublicKey, kind, name string) (solana.PublicKey, uint8, error) {
	seed := []byte(name)
	if len(seed) > solana.MaxSeedLength {
		seed = sha256Bytes(name)
	}
	addr, bump, err := solana.FindProgramAddress([][]byte{[]byte(kind), seed}, program)
	if err != nil {
		return solana.PublicKey{}, 0, fmt.Errorf("derive %s address of %q: %w", kind, name, err)
	}
	return addr, bump, nil
}
