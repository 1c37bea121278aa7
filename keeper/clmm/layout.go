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
	// TicksPerArray is the number of ticks in one tick array (60 in
	// layout A, 88 in layout B).
	TicksPerArray() int32
	// TickArrayStart returns the start index of the tick array holding
	// tick in a pool of the given spacing, rounding toward −∞.
	TickArrayStart(tick int32, spacing uint16) int32
	// DecodeTickArray decodes a tick-array account (layout B: fixed or
	// dynamic, told apart by discriminator). Tick indices are filled in
	// from spacing.
	DecodeTickArray(data []byte, spacing uint16) (TickArray, error)
	// EncodeTickArray returns the account bytes for a (layout B: the
	// dynamic format when a.Dynamic). Ticks beyond the array's size are
	// ignored; missing ones are uninitialized.
	EncodeTickArray(a TickArray) []byte
	// GrowthInside returns the fee and reward growths inside the range
	// bounded by lower and upper at this pool state, by the layout's rule.
	GrowthInside(pool Pool, lower, upper Tick) Growths
	// Owed computes what the position is owed at this pool state from the
	// ticks at its lower and upper bounds, in the program's arithmetic.
	Owed(pool Pool, pos Position, lower, upper Tick) (Owed, error)
}

// layout implements [Layout] from its three parts, each its own concept:
// the pool and position accounts (a table of field offsets), the tick-array
// accounts (whose formats differ between the programs), and the fee rules.
type layout struct {
	accountLayout
	tickArrayCodec
	feeRules
}

// tickArrayCodec is the tick-array part of [Layout].
type tickArrayCodec interface {
	TicksPerArray() int32
	TickArrayStart(tick int32, spacing uint16) int32
	DecodeTickArray(data []byte, spacing uint16) (TickArray, error)
	EncodeTickArray(a TickArray) []byte
}

// feeRules is the fee and reward accounting part of [Layout]: the rule for
// the growth inside a range and the program's arithmetic of amounts owed.
type feeRules struct {
	inside func(current int32, global U128, b boundary) U128
	owed   func(g Growths, pos Position) (Owed, error)
}

// GrowthInside returns the fee and reward growths inside the range bounded
// by lower and upper at this pool state.
func (f feeRules) GrowthInside(pool Pool, lower, upper Tick) Growths {
	return growthsInside(f.inside, pool, lower, upper)
}

// Owed computes what pos is owed at this pool state.
func (f feeRules) Owed(pool Pool, pos Position, lower, upper Tick) (Owed, error) {
	return f.owed(f.GrowthInside(pool, lower, upper), pos)
}

// The two layouts. They are pointers so that Layout values stay comparable.
var (
	layoutA = &layout{accountsA, tickArraysA{}, feeRules{inside: insideA, owed: owedA}}
	layoutB = &layout{accountsB, tickArraysB{}, feeRules{inside: insideB, owed: func(g Growths, pos Position) (Owed, error) {
		return owedB(g, pos), nil
	}}}
)

// LayoutA returns layout A ("dex-a"): accounts PoolState and
// PersonalPositionState.
func LayoutA() Layout { return layoutA }

// LayoutB returns layout B ("dex-b"): accounts Whirlpool and Position.
func LayoutB() Layout { return layoutB }

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
