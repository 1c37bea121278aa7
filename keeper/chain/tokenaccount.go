package chain

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// SPL token account layout (shared by Token and Token-2022).
const (
	tokenAccountLen     = 165
	tokenMintOffset     = 0
	tokenOwnerOffset    = 32
	tokenAmountOffset   = 64
	tokenStateOffset    = 108
	token2022TypeOffset = 165 // AccountType byte after the base layout
	token2022TypeAcct   = 2
)

// tokenAccount is the part of an SPL token account that outflows need.
type tokenAccount struct {
	Mint   solana.PublicKey
	Owner  solana.PublicKey
	Amount uint64
}

// decodeTokenAccount decodes an initialized SPL token account owned by the
// Token or Token-2022 program; ok is false for anything else (a mint, a
// closed or uninitialized account, another program's account).
func decodeTokenAccount(a *Account) (tokenAccount, bool) {
	if a == nil || len(a.Data) < tokenAccountLen {
		return tokenAccount{}, false
	}
	d := a.Data
	switch {
	case a.Owner.Equals(solana.TokenProgramID):
		if len(d) != tokenAccountLen {
			return tokenAccount{}, false
		}
	case a.Owner.Equals(solana.Token2022ProgramID):
		if len(d) > tokenAccountLen && d[token2022TypeOffset] != token2022TypeAcct {
			return tokenAccount{}, false
		}
	default:
		return tokenAccount{}, false
	}
	if d[tokenStateOffset] == 0 {
		return tokenAccount{}, false
	}
	return tokenAccount{
		Mint:   solana.PublicKeyFromBytes(d[tokenMintOffset : tokenMintOffset+32]),
		Owner:  solana.PublicKeyFromBytes(d[tokenOwnerOffset : tokenOwnerOffset+32]),
		Amount: binary.LittleEndian.Uint64(d[tokenAmountOffset:]),
	}, true
}
