package clmm

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// positionSeed is the first PDA seed of position accounts in both layouts.
var positionSeed = []byte("position")

// Dex is one CLMM program: an account layout and the program id that owns
// its accounts. The zero Dex is not usable; build one with [NewDex].
type Dex struct {
	layout    Layout
	programID solana.PublicKey
}

// NewDex returns the dex with the named layout (DexA or DexB) owned by
// programID, which comes from config; it must not be the zero key.
func NewDex(layout string, programID solana.PublicKey) (Dex, error) {
	l, err := LayoutByName(layout)
	if err != nil {
		return Dex{}, err
	}
	return NewDexWithLayout(l, programID)
}

// NewDexWithLayout returns the dex with layout l owned by programID.
func NewDexWithLayout(l Layout, programID solana.PublicKey) (Dex, error) {
	if l == nil {
		return Dex{}, errors.New("clmm: dex needs a layout")
	}
	if programID.IsZero() {
		return Dex{}, fmt.Errorf("clmm: %s: program id is not set", l.Name())
	}
	return Dex{layout: l, programID: programID}, nil
}

// Name returns the layout name, or "" for the zero Dex.
func (d Dex) Name() string {
	if d.layout == nil {
		return ""
	}
	return d.layout.Name()
}

// Layout returns the account layout; nil for the zero Dex.
func (d Dex) Layout() Layout { return d.layout }

// ProgramID returns the program that owns the dex's accounts.
func (d Dex) ProgramID() solana.PublicKey { return d.programID }

// valid reports an error for the zero Dex.
func (d Dex) valid() error {
	if d.layout == nil || d.programID.IsZero() {
		return errors.New("dex not configured (use NewDex)")
	}
	return nil
}

// PositionAddress returns the address and bump of the position account of
// the position mint: the PDA of seeds ["position", mint] under the program.
func (d Dex) PositionAddress(mint solana.PublicKey) (solana.PublicKey, uint8, error) {
	addr, bump, err := d.positionAddress(mint)
	if err != nil {
		return solana.PublicKey{}, 0, fmt.Errorf("clmm: %w", err)
	}
	return addr, bump, nil
}

// positionAddress is PositionAddress with errors not yet prefixed.
func (d Dex) positionAddress(mint solana.PublicKey) (solana.PublicKey, uint8, error) {
	if err := d.valid(); err != nil {
		return solana.PublicKey{}, 0, err
	}
	addr, bump, err := solana.FindProgramAddress([][]byte{positionSeed, mint[:]}, d.programID)
	if err != nil {
		return solana.PublicKey{}, 0, fmt.Errorf("%s: position address of mint %s: %w", d.Name(), mint, err)
	}
	return addr, bump, nil
}
