package clmm

import (
	"crypto/sha256"
	"fmt"
)

// Layout names.
const (
	// DexA is the name of layout A.
	DexA = "dex-a"
	// DexB is the name of layout B.
	DexB = "dex-b"
)

// Layout decodes and encodes one CLMM program's pool and position accounts.
// Implementations are pure and safe for concurrent use. Decode errors are
// [*AccountError] values without an address; encoders write exactly the
// fields of [Pool] and [Position] that the layout stores, zeroing the rest
// of the account (reward and bookkeeping fields keeper does not read).
type Layout interface {
	// Name returns the layout name, DexA or DexB.
	Name() string
	// PoolSize and PositionSize return the exact account sizes in bytes.
	PoolSize() int
	PositionSize() int
	// DecodePool decodes a pool account.
	DecodePool(data []byte) (Pool, error)
	// EncodePool returns the account bytes for p.
	EncodePool(p Pool) []byte
	// DecodePosition decodes a position account.
	DecodePosition(data []byte) (Position, error)
	// EncodePosition returns the account bytes for p.
	EncodePosition(p Position) []byte
}

// LayoutA returns layout A ("dex-a"): accounts PoolState and
// PersonalPositionState.
func LayoutA() Layout { return layoutA{} }

// LayoutB returns layout B ("dex-b"): accounts Whirlpool and Position.
func LayoutB() Layout { return layoutB{} }

// LayoutByName returns the layout called name (DexA or DexB).
func LayoutByName(name string) (Layout, error) {
	switch name {
	case DexA:
		return LayoutA(), nil
	case DexB:
		return LayoutB(), nil
	}
	return nil, fmt.Errorf("clmm: unknown dex layout %q (want %q or %q)", name, DexA, DexB)
}

// Discriminator returns the Anchor account discriminator of the struct
// called name: the first 8 bytes of sha256("account:" + name).
func Discriminator(name string) [8]byte {
	sum := sha256.Sum256([]byte("account:" + name))
	var d [8]byte
	copy(d[:], sum[:8])
	return d
}
