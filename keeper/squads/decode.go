package squads

import (
	"fmt"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
)

func newDecoder(b []byte) *bin.Decoder { return bin.NewBinDecoder(b) }

// ParseSolana decodes a compiled Solana message (legacy or v0) and turns it
// into the program's form (see FromSolana), with its blockhash.
func ParseSolana(raw []byte) (*Message, solana.Hash, error) {
	var m solana.Message
	if err := m.UnmarshalWithDecoder(newDecoder(raw)); err != nil {
		return nil, solana.Hash{}, fmt.Errorf("squads: %w: %v", ErrMalformed, err)
	}
	out, err := FromSolana(&m)
	return out, m.RecentBlockhash, err
}
