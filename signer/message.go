package signer

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// ErrMalformed is wrapped by every error about bytes that are not a valid
// Solana message or transaction, or text in the wrong encoding.
var ErrMalformed = errors.New("malformed transaction")

// maxAccounts is the most accounts a message may reference (static keys plus
// lookup-table entries), as the chain's sanitize rules require.
const maxAccounts = 256

// header is a message header.
type header struct {
	numRequiredSignatures       uint8
	numReadonlySignedAccounts   uint8
	numReadonlyUnsignedAccounts uint8
}

// instruction is one compiled top-level instruction. Its slices alias the
// message bytes, which are never modified.
type instruction struct {
	program  uint8   // index of the program id among the static keys
	accounts []uint8 // indexes into static keys, then lookup-table entries
	data     []byte
}

// lookup is one address-table lookup of a v0 message.
type lookup struct {
	table    solana.PublicKey
	writable []uint8
	readonly []uint8
}

// message is the decoded view of message bytes, used only for inspection.
type message struct {
	versioned bool
	header    header
	keys      []solana.PublicKey // static account keys
	blockhash solana.Hash
	ixs       []instruction
	lookups   []lookup
}

// numLookupAccounts counts the accounts loaded through address tables.
func (m *message) numLookupAccounts() int {
	n := 0
	for _, l := range m.lookups {
		n += len(l.writable) + len(l.readonly)
	}
	return n
}

// staticKey returns the static key at index i, or false when i refers to an
// account loaded through an address table.
func (m *message) staticKey(i uint8) (solana.PublicKey, bool) {
	if int(i) >= len(m.keys) {
		return solana.PublicKey{}, false
	}
	return m.keys[i], true
}

// signerIndex returns the slot of pk among the required signers, or -1.
func (m *message) signerIndex(pk solana.PublicKey) int {
	for i := range int(m.header.numRequiredSignatures) {
		if m.keys[i] == pk {
			return i
		}
	}
	return -1
}

// parseMessage decodes b as a legacy or v0 message, requiring every byte to be
// consumed, and applies the chain's sanitize rules.
func parseMessage(b []byte) (*message, error) {
	c := cursor{b: b}
	m, err := c.message()
	if err != nil {
		return nil, err
	}
	if c.off != len(b) {
		return nil, malformed(c.off, "message", errors.New("trailing bytes after the message"))
	}
	if err := m.sanitize(); err != nil {
		return nil, fmt.Errorf("%w: message: %w", ErrMalformed, err)
	}
	return m, nil
}

// malformed builds an ErrMalformed error located at a byte offset.
func malformed(off int, field string, err error) error {
	return fmt.Errorf("%w: byte %d: %s: %w", ErrMalformed, off, field, err)
}
