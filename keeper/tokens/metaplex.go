package tokens

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// metadataV1 is Metaplex's Key::MetadataV1.
const metadataV1 = 4

// MetadataAddress returns the Metaplex Token Metadata account of mint: the PDA of
// ["metadata", program, mint] under the Token Metadata program.
func MetadataAddress(mint solana.PublicKey) (solana.PublicKey, error) {
	addr, _, err := solana.FindProgramAddress([][]byte{[]byte("metadata"), MetadataProgramID[:], mint[:]}, MetadataProgramID)
	return addr, err
}

// DecodeMetadata reads name and symbol from a Metaplex metadata account owned by owner, checking
// that it is a MetadataV1 account of mint.
func DecodeMetadata(owner, mint solana.PublicKey, data []byte) (name, symbol string, err error) {
	if owner != MetadataProgramID {
		return "", "", fmt.Errorf("not token metadata: owned by %s", owner)
	}
	if len(data) < 65 || data[0] != metadataV1 {
		return "", "", errors.New("not a MetadataV1 account")
	}
	if solana.PublicKeyFromBytes(data[33:65]) != mint {
		return "", "", errors.New("metadata of another mint")
	}
	r := reader{b: data[65:]}
	name, symbol = r.str(), r.str()
	return cleanText(name), cleanText(symbol), r.err
}
