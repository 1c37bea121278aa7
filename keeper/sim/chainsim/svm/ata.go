package svm

import (
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// ataCache memoizes associated token addresses: deriving one costs a few
// hashes and curve checks.
var ataCache sync.Map // [64]byte(wallet ‖ mint) → solana.PublicKey

// AssociatedTokenAddress returns the associated token account of wallet for
// mint (SPL Token program), derived as the ATA program does.
func AssociatedTokenAddress(wallet, mint solana.PublicKey) (solana.PublicKey, error) {
	var k [64]byte
	copy(k[:32], wallet[:])
	copy(k[32:], mint[:])
	if v, ok := ataCache.Load(k); ok {
		return v.(solana.PublicKey), nil
	}
	addr, _, err := solana.FindAssociatedTokenAddress(wallet, mint)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("chainsim: associated token address of %s for mint %s: %w", wallet, mint, err)
	}
	ataCache.Store(k, addr)
	return addr, nil
}
