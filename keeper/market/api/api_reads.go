package api

import (
	"context"
	"github.com/keeper-project/keeper/keeper/market"
)

// LoansInfo calls E3 (loans info) for one page.
func (c *Client) LoansInfo(ctx context.Context, q market.LoansQuery) (*market.LoansPage, error) {
	if err := q.Validate(); err != nil {
		return nil, invalid(market.EndpointLoansInfo, err)
	}
	var out market.LoansPage
	if err := c.post(ctx, market.EndpointLoansInfo, "", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// VaultDeposits calls E5 (vault depositors) for one page.
func (c *Client) VaultDeposits(ctx context.Context, q market.VaultDepositsQuery) ([]market.VaultDeposits, error) {
	if err := q.Validate(); err != nil {
		return nil, invalid(market.EndpointVaultDeposits, err)
	}
	var out market.StrictList[market.VaultDeposits]
	if err := c.post(ctx, market.EndpointVaultDeposits, "", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// BestQuotes calls E6 (max quote): the best quote per requested collateral asset. The configured
// wallet and payer are sent so that the quote is tailored to the wallet's positions.
func (c *Client) BestQuotes(ctx context.Context, req market.QuoteRequest) ([]market.Quote, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointBestQuote, err)
	}
	var out market.StrictList[market.Quote]
	if err := c.post(ctx, market.EndpointBestQuote, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// HistoricalHolders calls E7 (historical collateral holders). An unknown mint gives an empty slice.
func (c *Client) HistoricalHolders(ctx context.Context, req market.HoldersRequest) ([]market.CollateralHolder, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointHistoricalHolders, err)
	}
	var out market.StrictList[market.CollateralHolder]
	if err := c.post(ctx, market.EndpointHistoricalHolders, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Vaults calls E11 (vault listing) for one page.
func (c *Client) Vaults(ctx context.Context, q market.VaultsQuery) (*market.VaultsPage, error) {
	if err := q.Validate(); err != nil {
		return nil, invalid(market.EndpointVaultsInfo, err)
	}
	var out market.VaultsPage
	if err := c.post(ctx, market.EndpointVaultsInfo, "", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Loops calls E12 (loop info).
func (c *Client) Loops(ctx context.Context, q market.LoopsQuery) ([]market.Loop, error) {
	var out market.LoopList
	if err := c.post(ctx, market.EndpointLoopInfo, "", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}
