package keeper

import (
	"context"
	"fmt"
	"slices"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// WalletReport is what the wallet owns on the market, as `keeper wallet`
// shows it: its loans, their CLMM collateral positions and its earn
// withdrawal requests with the facts policies decide from, and its SOL.
type WalletReport struct {
	Wallet   string `json:"wallet"`
	Lamports uint64 `json:"lamports"`
	// EarnVaults are the earn vaults whose withdrawal queues were read.
	EarnVaults []string `json:"earn_vaults"`
	policies.Holdings
	// Tokens names the mints the report's amounts are in.
	Tokens map[string]policies.Token `json:"tokens,omitempty"`
	// Links are explorer links to the wallet and the report's accounts.
	Links map[string]string `json:"links,omitempty"`
	// PoolMints are the token mints (0 and 1) of each position's pool, by
	// position mint, which its fees owed are in.
	PoolMints map[string][2]string `json:"pool_mints,omitempty"`
}

// Holdings reads what the wallet owns: every loan it borrows, the CLMM
// positions those loans hold, and its withdrawal requests in earnVaults
// and in the vaults the claim-withdrawals policies select. It signs and
// journals nothing.
func (k *Keeper) Holdings(ctx context.Context, earnVaults []string) (*WalletReport, error) {
	vaults := slices.Clone(earnVaults)
	if ps, err := k.policies.load(); err == nil {
		for _, p := range ps {
			if p.Kind == policies.KindClaimWithdrawals {
				vaults = append(vaults, p.Select.Vaults...)
			}
		}
	}
	slices.Sort(vaults)
	vaults = slices.Compact(vaults)
	r := policies.Reads{Loans: &market.LoansQuery{Borrowers: []string{k.wallet.String()}}, Positions: true,
		EarnVaults: vaults, PositionValues: true}
	obs, err := k.obs.observeAfresh(ctx, nil, r)
	if err != nil {
		return nil, fmt.Errorf("reading the wallet's holdings: %w", err)
	}
	lamports, err := k.submitter.Balance(ctx, k.wallet)
	if err != nil {
		return nil, fmt.Errorf("reading the wallet's SOL: %w", err)
	}
	rep := &WalletReport{Wallet: k.wallet.String(), Lamports: lamports, EarnVaults: vaults,
		Holdings: obs.Holdings(k.now()), Tokens: obs.Tokens}
	rep.Links = accountLinks(k.cfg, rep)
	rep.PoolMints = poolMints(obs.Positions)
	return rep, nil
}

// poolMints maps each position read to its pool's two token mints.
func poolMints(ps []policies.PositionObservation) map[string][2]string {
	out := map[string][2]string{}
	for _, p := range ps {
		if p.State.Err == nil {
			out[p.State.Request.PositionMint.String()] = [2]string{p.State.Pool.Mint0.String(), p.State.Pool.Mint1.String()}
		}
	}
	return out
}

// accountLinks links the wallet, the loans and the positions' mints to the
// explorer (none when the explorer shows no accounts).
func accountLinks(cfg *config.Config, rep *WalletReport) map[string]string {
	links, err := cfg.Explorer.Links(cfg.Chain.RPCURL)
	if err != nil || links.Address(rep.Wallet) == "" {
		return nil
	}
	out := map[string]string{rep.Wallet: links.Address(rep.Wallet)}
	for _, l := range rep.Loans {
		out[l.Address] = links.Address(l.Address)
	}
	for _, p := range rep.Positions {
		out[p.PositionMint] = links.Address(p.PositionMint)
	}
	return out
}
