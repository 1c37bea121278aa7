package clmm

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// accountSpec identifies one Anchor account type of one layout.
type accountSpec struct {
	dex     string // layout name
	kind    string // AccountPool or AccountPosition
	structN string // Anchor struct name, hashed into the discriminator
	size    int    // exact account size in bytes
	disc    [8]byte
}

func newSpec(dex, kind, structName string, size int) accountSpec {
	return accountSpec{dex: dex, kind: kind, structN: structName, size: size, disc: Discriminator(structName)}
}

// fail returns an *AccountError for this account type.
func (s accountSpec) fail(err error) error {
	return &AccountError{Dex: s.dex, Account: s.kind, Err: err}
}

// check validates the length and discriminator of data.
func (s accountSpec) check(data []byte) error {
	if len(data) != s.size {
		return s.fail(fmt.Errorf("%w: %d bytes, want %d for %s", ErrLength, len(data), s.size, s.structN))
	}
	if !bytes.Equal(data[:8], s.disc[:]) {
		return s.fail(fmt.Errorf("%w: %x, want %x (%s)", ErrDiscriminator, data[:8], s.disc, s.structN))
	}
	return nil
}

// newAccount returns a zeroed account of this type with its discriminator.
func (s accountSpec) newAccount() []byte {
	b := make([]byte, s.size)
	copy(b, s.disc[:])
	return b
}

// validatePool checks the decoded pool values.
func (s accountSpec) validatePool(p Pool) error {
	if p.TickSpacing == 0 {
		return s.fail(fmt.Errorf("%w: tick spacing is zero", ErrInvalid))
	}
	if p.TickCurrent < MinTick || p.TickCurrent > MaxTick {
		return s.fail(fmt.Errorf("%w: current tick %d outside [%d, %d]", ErrInvalid, p.TickCurrent, MinTick, MaxTick))
	}
	return nil
}

// validatePosition checks the decoded position values.
func (s accountSpec) validatePosition(p Position) error {
	if err := p.Range.Validate(); err != nil {
		return s.fail(fmt.Errorf("%w: %w", ErrInvalid, err))
	}
	return nil
}

func getKey(b []byte, off int) solana.PublicKey {
	var k solana.PublicKey
	copy(k[:], b[off:off+solana.PublicKeyLength])
	return k
}

func putKey(b []byte, off int, k solana.PublicKey) { copy(b[off:off+solana.PublicKeyLength], k[:]) }

func getU16(b []byte, off int) uint16 { return binary.LittleEndian.Uint16(b[off:]) }

func putU16(b []byte, off int, v uint16) { binary.LittleEndian.PutUint16(b[off:], v) }

func getI32(b []byte, off int) int32 { return int32(binary.LittleEndian.Uint32(b[off:])) }

func putI32(b []byte, off int, v int32) { binary.LittleEndian.PutUint32(b[off:], uint32(v)) }

func getU64(b []byte, off int) uint64 { return binary.LittleEndian.Uint64(b[off:]) }

func putU64(b []byte, off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }

// getPositionRewards reads the three 24-byte position reward slots at off
// (a u128 growth checkpoint and a u64 amount owed each); both layouts store
// them the same way.
func getPositionRewards(b []byte, off int) [NumRewards]PositionReward {
	var r [NumRewards]PositionReward
	for i := range r {
		at := off + 24*i
		r[i] = PositionReward{GrowthInside: getU128(b[at:]), Owed: getU64(b, at+16)}
	}
	return r
}

// putPositionRewards writes what getPositionRewards reads.
func putPositionRewards(b []byte, off int, r [NumRewards]PositionReward) {
	for i, x := range r {
		at := off + 24*i
		putU128(b[at:], x.GrowthInside)
		putU64(b, at+16, x.Owed)
	}
}
