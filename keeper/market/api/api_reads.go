package api

import (
	"context"
	"github.com/keeper-project/keeper/keeper/market"
)

// quotes is the client's service for the reads about what the market offers: the best quotes, the
// historical collateral holders and the loops.
type quotes struct {
	t *transport
}

// BestQuotes calls E6 (max quote): the best quote per requested collateral asset. The configured
// wallet and payer are sent so that the quote is tailored to the wallet's positions.
func (s *quotes) BestQuotes(ctx context.Context, req market.QuoteRequest) ([]market.Quote, error) {
	return list[market.Quote](ctx, s.t, market.EndpointBestQuote, req)
}

// HistoricalHolders calls E7 (historical collateral holders). An unknown mint gives an empty slice.
func (s *quotes) HistoricalHolders(ctx context.Context, req market.HoldersRequest) ([]market.CollateralHolder, error) {
	return list[market.CollateralHolder](ctx, s.t, market.EndpointHistoricalHolders, req)
}

// Loops calls E12 (loop info).
func (s *quotes) Loops(ctx context.Context, q market.LoopsQuery) ([]market.Loop, error) {
	var out market.LoopList
	if err := s.t.post(ctx, market.EndpointLoopInfo, "", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}
