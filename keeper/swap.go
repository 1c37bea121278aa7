package keeper

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/jupiter"
)

// collateralConfig wires a repay from collateral: swapper, or else the
// Jupiter client of the swap section (none when it has no base URL), its
// programs, the E2 step layout, and the wallet's balance read from chain
// for source auto.
func collateralConfig(c *config.Config, swapper action.Swapper, wallet solana.PublicKey, accounts func(context.Context, []solana.PublicKey) ([][]byte, error)) (action.CollateralConfig, error) {
	s := c.Swap
	out := action.CollateralConfig{Layout: s.Layout, ExactOutSlippageBps: s.ExactOutSlippageBps}
	for _, p := range s.Programs {
		pk, err := solana.PublicKeyFromBase58(p)
		if err != nil {
			return out, fmt.Errorf("keeper: swap.programs: %w", err)
		}
		out.Programs = append(out.Programs, pk)
	}
	out.Balance = func(ctx context.Context, mint string) (uint64, error) {
		return tokenBalance(ctx, accounts, wallet, mint)
	}
	sw, err := swapClient(c, swapper)
	out.Swapper = sw
	return out, err
}

// swapClient returns swapper, or else the Jupiter client of c's swap
// section; nil when it has no base URL.
func swapClient(c *config.Config, swapper action.Swapper) (action.Swapper, error) {
	s := c.Swap
	if swapper != nil || s.BaseURL == "" {
		return swapper, nil
	}
	jc, err := jupiter.New(jupiter.Options{BaseURL: s.BaseURL.Reveal(), APIKey: s.APIKey.Value.Reveal(), Timeout: s.Timeout})
	if err != nil {
		return nil, fmt.Errorf("keeper: swap: %w", err)
	}
	return jc, nil
}

// tokenBalance reads wallet's associated token account of mint: its amount
// (bytes 64..72 of an SPL token account), 0 when it does not exist.
func tokenBalance(ctx context.Context, accounts func(context.Context, []solana.PublicKey) ([][]byte, error), wallet solana.PublicKey, mint string) (uint64, error) {
	m, err := solana.PublicKeyFromBase58(mint)
	if err != nil {
		return 0, fmt.Errorf("mint %q: %w", mint, err)
	}
	ata, _, err := solana.FindAssociatedTokenAddress(wallet, m)
	if err != nil {
		return 0, err
	}
	data, err := accounts(ctx, []solana.PublicKey{ata})
	if err != nil {
		return 0, err
	}
	if len(data) == 0 || len(data[0]) < 72 {
		return 0, nil
	}
	return binary.LittleEndian.Uint64(data[0][64:72]), nil
}
