package state

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Withdrawal request accounts are owned by the earn program. Layout (128 bytes): discriminator
// sha256("account:SimWithdrawRequest")[:8] @0, earn vault @8, wallet @40, mint @72, requested u64 @104,
// filled u64 @112, created unix seconds i64 @120. A claim pays out and closes the account (its data is
// emptied), so a second claim fails with "request account not found".
var requestDisc = [8]byte{0xca, 0x44, 0x31, 0xb9, 0x69, 0x77, 0xa9, 0x95} // clmm.Discriminator("SimWithdrawRequest"), written out: see lazy

// requestSize is the size of a withdrawal request account.
const requestSize = 128

// Request is the on-chain state of one queued earn withdrawal.
type Request struct {
	Vault     solana.PublicKey
	Wallet    solana.PublicKey
	Mint      solana.PublicKey
	Requested uint64
	Filled    uint64
	Created   int64
}

// Encode returns the account data of r.
func (r Request) Encode() []byte {
	b := make([]byte, requestSize)
	copy(b, requestDisc[:])
	copy(b[8:], r.Vault[:])
	copy(b[40:], r.Wallet[:])
	copy(b[72:], r.Mint[:])
	binary.LittleEndian.PutUint64(b[104:], r.Requested)
	binary.LittleEndian.PutUint64(b[112:], r.Filled)
	binary.LittleEndian.PutUint64(b[120:], uint64(r.Created))
	return b
}

// DecodeRequest parses request account data; empty data means the request was claimed (closed).
func DecodeRequest(data []byte) (Request, error) {
	if len(data) == 0 {
		return Request{}, fmt.Errorf("request %w", errNoAccount)
	}
	if len(data) != requestSize || !bytes.Equal(data[:8], requestDisc[:]) {
		return Request{}, fmt.Errorf("request account: not a withdrawal request (%d bytes)", len(data))
	}
	return Request{
		Vault:     solana.PublicKeyFromBytes(data[8:40]),
		Wallet:    solana.PublicKeyFromBytes(data[40:72]),
		Mint:      solana.PublicKeyFromBytes(data[72:104]),
		Requested: binary.LittleEndian.Uint64(data[104:]),
		Filled:    binary.LittleEndian.Uint64(data[112:]),
		Created:   int64(binary.LittleEndian.Uint64(data[120:])),
	}, nil
}
