// Package ids holds the simulator's fixed ids and keys: the program ids of the
// market, earn and CLMM programs, the market's co-signer and the stranger
// of hostile modes, and the addresses derived from scenario names.
package ids

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/lazy"
)

// The simulator's fixed program ids. The committed config.yaml names them. They are written as
// bytes, not decoded from base58 at start-up, so that the package does no work when the binary
// starts: every keeper command links the simulator, and most never run it (TestProgramIDs checks
// the bytes against the base58).
var (
	// MarketProgramID is the simulated lending market's program, SimMarket1111111111111111111111111111111111.
	MarketProgramID = solana.PublicKey{0x06, 0x96, 0xbe, 0x67, 0x9b, 0x32, 0x7f, 0xfb, 0x7c, 0x45, 0x44, 0x9c, 0x88, 0x28, 0xb9, 0x95,
		0x46, 0xc8, 0xa8, 0x9e, 0x76, 0x9e, 0x61, 0x16, 0x8c, 0xc4, 0x9f, 0x84}
	// EarnProgramID is the simulated earn vaults' program (withdrawal claims), SimEarn111111111111111111111111111111111111.
	EarnProgramID = solana.PublicKey{0x06, 0x96, 0xbd, 0xcd, 0x69, 0x46, 0x08, 0xc9, 0x0c, 0x76, 0xd9, 0x68, 0x4d, 0x81, 0xd1, 0x17,
		0x11, 0xa5, 0x32, 0xf0, 0xcd, 0xa9, 0x71, 0x51, 0x4b, 0x58, 0xf8, 0x30}
	// DexAProgramID is the simulated dex-a CLMM program (layout A accounts), SimDexA111111111111111111111111111111111111.
	DexAProgramID = solana.PublicKey{0x06, 0x96, 0xbd, 0xb8, 0xf0, 0x0f, 0x3d, 0x65, 0x11, 0x46, 0x6d, 0x69, 0x7a, 0x4a, 0x3c, 0x66,
		0xec, 0x86, 0xd8, 0x27, 0xea, 0xc4, 0xa8, 0xaa, 0xd3, 0x38, 0xd2, 0x30}
	// DexBProgramID is the simulated dex-b CLMM program (layout B accounts), SimDexB111111111111111111111111111111111111.
	DexBProgramID = solana.PublicKey{0x06, 0x96, 0xbd, 0xb8, 0xf0, 0x16, 0xa3, 0x85, 0x11, 0x0e, 0x0b, 0x2e, 0xa2, 0x16, 0x21, 0xeb,
		0x16, 0x27, 0x94, 0x7b, 0xb5, 0x06, 0x1e, 0xab, 0x04, 0x9b, 0x27, 0x40}
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
	coSignerKey = &lazy.Value[ed25519.PrivateKey]{Make: func() ed25519.PrivateKey { return keyFromSeedText(CoSignerSeedText) }}
	strangerKey = &lazy.Value[ed25519.PrivateKey]{Make: func() ed25519.PrivateKey { return keyFromSeedText(strangerSeedText) }}
)

// CoSigner returns the public key of the market's co-signer, a read-only signer of every market
// instruction that has already signed every transaction the simulator builds.
func CoSigner() solana.PublicKey { return PublicKeyOf(coSignerKey.Get()) }

// Stranger returns the public key hostile transactions name as the thief, the foreign fee payer or
// the extra signer.
func Stranger() solana.PublicKey { return PublicKeyOf(strangerKey.Get()) }

// PublicKeyOf returns the solana public key of an ed25519 private key.
func PublicKeyOf(k ed25519.PrivateKey) solana.PublicKey {
	return solana.PublicKeyFromBytes(k.Public().(ed25519.PublicKey))
}

// DerivedKey returns a deterministic, named address: sha256("keeper/sim " + kind + " " + name).
// It is used for mints, other wallets and position mints, which never sign.
func DerivedKey(kind, name string) solana.PublicKey {
	return solana.PublicKeyFromBytes(Sha256Bytes("keeper/sim " + kind + " " + name))
}

// Sha256Bytes returns the SHA-256 of s.
func Sha256Bytes(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// PDA returns the program address of seeds under program. Names longer than a seed may be are
// hashed first, so any scenario name works.
func PDA(program solana.PublicKey, kind, name string) (solana.PublicKey, uint8, error) {
	seed := []byte(name)
	if len(seed) > solana.MaxSeedLength {
		seed = Sha256Bytes(name)
	}
	addr, bump, err := solana.FindProgramAddress([][]byte{[]byte(kind), seed}, program)
	if err != nil {
		return solana.PublicKey{}, 0, fmt.Errorf("derive %s address of %q: %w", kind, name, err)
	}
	return addr, bump, nil
}

// CoSignerKey returns the market co-signer's private key, with which the
// simulator signs every transaction it builds.
func CoSignerKey() ed25519.PrivateKey { return coSignerKey.Get() }

// StrangerKey returns the private key of [Stranger], with which hostile
// transactions are signed.
func StrangerKey() ed25519.PrivateKey { return strangerKey.Get() }

// MemberKey returns the private key of voter of the scenario's multisig named multisig: the ed25519
// key whose seed is sha256("keeper/sim squads member " + multisig + " " + voter). Like the
// co-signer's, it is public knowledge: it only ever signs simulated votes.
func MemberKey(multisig, voter string) ed25519.PrivateKey {
	return keyFromSeedText("keeper/sim squads member " + multisig + " " + voter)
}
