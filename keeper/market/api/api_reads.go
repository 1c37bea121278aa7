package api

import (
	"context"
	"github.com/keeper-project/keeper/keeper/market"
)

// LoansInfo calls E3 (loans info) for one page.
func (c *Client) LoansInfo(ctx context.Context, q market.LoansQuery) (*market.LoansPage, error) {
	return fetch[market.LoansPage](ctx, c.t, market.EndpointLoansInfo, "", q)
}

// VaultDeposits calls E5 (vault depositors) for one page.
func (c *Client) VaultDeposits(ctx context.Context, q market.VaultDepositsQuery) ([]market.VaultDeposits, error) {
	return list[market.VaultDeposits](ctx, c.t, market.EndpointVaultDeposits, q)
}

// BestQuotes calls E6 (max quote): the best quote per requested collateral asset. The configured
// wallet and payer are sent so that the quote is tailored to the wallet's positions.
func (c *Client) BestQuotes(ctx context.Context, req market.QuoteRequest) ([]market.Quote, error) {
	return list[market.Quote](ctx, c.t, market.EndpointBestQuote, req)
}

// HistoricalHolders calls E7 (historical collateral holders). An unknown mint gives an empty slice.
func (c *Client) HistoricalHolders(ctx context.Context, req market.HoldersRequest) ([]market.CollateralHolder, error) {
	return list[market.CollateralHolder](ctx, c.t, market.EndpointHistoricalHolders, req)
}

// Vaults calls E11 (vault listing) for one page.
func (c *Client) Vaults(ctx context.Context, q market.VaultsQuery) (*market.VaultsPage, error) {
	return fetch[market.VaultsPage](ctx, c.t, market.EndpointVaultsInfo, "", q)
}

// Loops calls E12 (loop info).
func (c *Client) Loops(ctx context.Context, q market.LoopsQuery) ([]market.Loop, error) {
	var out market.LoopList
	if err := c.t.post(ctx, market.EndpointLoopInfo, "", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}
