package keeper

import (
	"context"
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/market/api"
)

// proposalConfig wires proposal mode: a market client per multisig vault
// (the vault is the wallet the market builds for, see api.Client.ForWallet),
// and blockhashes from the chain client.
func proposalConfig(e env, d deps) action.ProposalConfig {
	pc := action.ProposalConfig{AppURL: e.cfg.Squads.AppBase()}
	b := &vaultBuilders{make: func(vault solana.PublicKey) (*api.Client, error) {
		return d.market.ForWallet(vault.String())
	}, clients: map[solana.PublicKey]action.Builder{}}
	pc.BuilderFor = b.get
	pc.Blockhash = func(ctx context.Context) (solana.Hash, error) {
		bh, err := d.submitter.LatestBlockhash(ctx)
		return bh.Hash, err
	}
	return pc
}

// vaultBuilders keeps one market client per vault.
type vaultBuilders struct {
	make    func(vault solana.PublicKey) (*api.Client, error)
	mu      sync.Mutex
	clients map[solana.PublicKey]action.Builder
}

// get returns the vault's client, made on first use.
func (v *vaultBuilders) get(vault solana.PublicKey) (action.Builder, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.clients[vault]; ok {
		return c, nil
	}
	c, err := v.make(vault)
	if err != nil {
		return nil, fmt.Errorf("keeper: market client for vault %s: %w", vault, err)
	}
	v.clients[vault] = c
	return c, nil
}
