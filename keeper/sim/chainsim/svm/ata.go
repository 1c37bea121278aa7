package svm

import (
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// ataCache memoizes associated token addresses: deriving one costs a few
// hashes and curve checks.
var ataCache sync.Map // [96]byte(wallet ‖ token program ‖ mint) → solana.PublicKey

// AssociatedTokenAddress returns the associated token account of wallet for
// mint (SPL Token program), derived as the ATA program does.
func AssociatedTokenAddress(wallet, mint solana.PublicKey) (solana.PublicKey, error) {
	return AssociatedTokenAddressOf(wallet, solana.TokenProgramID, mint)
}

// AssociatedTokenAddressOf returns the associated token account of wallet
// for mint under a token program (SPL Token or Token-2022): the program
// address of the seeds wallet, token program and mint, as the ATA program
// derives it.
func AssociatedTokenAddressOf(wallet, tokenProgram, mint solana.PublicKey) (solana.PublicKey, error) {
	var k [96]byte
	copy(k[:32], wallet[:])
	copy(k[32:64], tokenProgram[:])
	copy(k[64:], mint[:])
	if v, ok := ataCache.Load(k); ok {
		return v.(solana.PublicKey), nil
	}
	addr, _, err := solana.FindProgramAddress([][]byte{wallet[:], tokenProgram[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("chainsim: associated token address of %s for mint %s: %w", wallet, mint, err)
	}
	ataCache.Store(k, addr)
	return addr, nil
}
