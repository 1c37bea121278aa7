package market

import (
	"context"
	"errors"
)

// LoansInfo calls E3 (loans info) for one page.
func (c *Client) LoansInfo(ctx context.Context, q LoansQuery) (*LoansPage, error) {
	if err := errors.Join(validatePage(q.Page, q.PageSize), nonNegative("sortSide", q.SortSide),
		nonNegative("sortType", q.SortType)); err != nil {
		return nil, invalid(EndpointLoansInfo, err)
	}
	var out LoansPage
	if err := c.post(ctx, EndpointLoansInfo, "", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// VaultDeposits calls E5 (vault depositors) for one page.
func (c *Client) VaultDeposits(ctx context.Context, q VaultDepositsQuery) ([]VaultDeposits, error) {
	if err := errors.Join(validatePage(q.Page, q.PageSize), nonNegative("sort", q.Sort),
		nonNegative("sortDirection", q.SortDirection), nonNegative("stakeDuration", q.StakeDuration),
		nonNegative("status", q.Status)); err != nil {
		return nil, invalid(EndpointVaultDeposits, err)
	}
	var out strictList[VaultDeposits]
	if err := c.post(ctx, EndpointVaultDeposits, "", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// BestQuotes calls E6 (max quote): the best quote per requested collateral asset. The configured
// wallet and payer are sent so that the quote is tailored to the wallet's positions.
func (c *Client) BestQuotes(ctx context.Context, req QuoteRequest) ([]Quote, error) {
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointBestQuote, err)
	}
	var out strictList[Quote]
	if err := c.post(ctx, EndpointBestQuote, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// HistoricalHolders calls E7 (historical collateral holders). An unknown mint gives an empty slice.
func (c *Client) HistoricalHolders(ctx context.Context, req HoldersRequest) ([]CollateralHolder, error) {
	if err := required("mint", req.Mint); err != nil {
		return nil, invalid(EndpointHistoricalHolders, err)
	}
	if req.RangeEnd < req.RangeStart {
		return nil, invalid(EndpointHistoricalHolders, errors.New("rangeEnd is before rangeStart"))
	}
	var out strictList[CollateralHolder]
	if err := c.post(ctx, EndpointHistoricalHolders, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Vaults calls E11 (vault listing) for one page.
func (c *Client) Vaults(ctx context.Context, q VaultsQuery) (*VaultsPage, error) {
	if err := validatePage(q.Page, q.PageSize); err != nil {
		return nil, invalid(EndpointVaultsInfo, err)
	}
	var out VaultsPage
	if err := c.post(ctx, EndpointVaultsInfo, "", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Loops calls E12 (loop info).
func (c *Client) Loops(ctx context.Context, q LoopsQuery) ([]Loop, error) {
	var out loopList
	if err := c.post(ctx, EndpointLoopInfo, "", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}
