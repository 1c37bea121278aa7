package squads

import (
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// lookupTableMeta is the size of an address lookup table's header
// (LOOKUP_TABLE_META_SIZE); the addresses follow it.
const lookupTableMeta = 56

// LookupTableAddresses returns the addresses an address lookup table
// account's data holds.
func LookupTableAddresses(data []byte) ([]solana.PublicKey, error) {
	if len(data) < lookupTableMeta || (len(data)-lookupTableMeta)%32 != 0 || binary.LittleEndian.Uint32(data) != 1 {
		return nil, fmt.Errorf("squads: %w: not an address lookup table", ErrMalformed)
	}
	out := make([]solana.PublicKey, 0, (len(data)-lookupTableMeta)/32)
	for off := lookupTableMeta; off < len(data); off += 32 {
		out = append(out, solana.PublicKeyFromBytes(data[off:off+32]))
	}
	return out, nil
}
