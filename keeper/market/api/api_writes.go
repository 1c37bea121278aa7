package api

import (
	"context"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
)

// UpdateStrategy calls E1 (strategy update) and returns its transactions, to be signed and sent in
// array order. Large collateral-term updates come back as several transactions.
func (c *Client) UpdateStrategy(ctx context.Context, key market.IdempotencyKey, req market.StrategyUpdateRequest) ([]market.Transaction, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointUpdateStrategy, err)
	}
	var out []market.Transaction
	if err := c.post(ctx, market.EndpointUpdateStrategy, key, req, &out); err != nil {
		return nil, err
	}
	return out, checkTransactions(market.EndpointUpdateStrategy, out)
}

// BuildLoan calls E2 (loan build), e.g. a repay step, and returns the loan and its transactions.
func (c *Client) BuildLoan(ctx context.Context, key market.IdempotencyKey, req market.BuildLoanRequest) (*market.BuildLoanResponse, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointBuildLoan, err)
	}
	var out market.BuildLoanResponse
	if err := c.post(ctx, market.EndpointBuildLoan, key, req, &out); err != nil {
		return nil, err
	}
	return &out, checkTransactions(market.EndpointBuildLoan, out.Transactions)
}

// TransferPosition calls E4 (dex-a CLMM transfer_position) and returns its one transaction.
func (c *Client) TransferPosition(ctx context.Context, key market.IdempotencyKey, req market.TransferPositionRequest) (*market.Transaction, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointTransferPosition, err)
	}
	return c.postTransaction(ctx, market.EndpointTransferPosition, key, req)
}

// ClaimFees calls E8 (dex-b CLMM claim_fees) and returns its one transaction.
func (c *Client) ClaimFees(ctx context.Context, key market.IdempotencyKey, req market.ClaimFeesRequest) (*market.Transaction, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointClaimFees, err)
	}
	return c.postTransaction(ctx, market.EndpointClaimFees, key, req)
}

// WithdrawFromStrategy calls E9 (strategy withdraw) and returns its one transaction.
func (c *Client) WithdrawFromStrategy(ctx context.Context, key market.IdempotencyKey, req market.WithdrawStrategyRequest) (*market.Transaction, error) {
	if err := req.Validate(); err != nil {
		return nil, invalid(market.EndpointWithdrawStrategy, err)
	}
	return c.postTransaction(ctx, market.EndpointWithdrawStrategy, key, req)
}

// postTransaction posts a write whose response is one transaction object.
func (c *Client) postTransaction(ctx context.Context, ep string, key market.IdempotencyKey, req any) (*market.Transaction, error) {
	var out market.Transaction
	if err := c.post(ctx, ep, key, req, &out); err != nil {
		return nil, err
	}
	if err := checkTransactions(ep, []market.Transaction{out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// checkTransactions refuses an empty transaction list or a transaction without a message.
func checkTransactions(ep string, txs []market.Transaction) error {
	if len(txs) == 0 {
		return fmt.Errorf("market: %s: response holds no transaction", ep)
	}
	for i, tx := range txs {
		if tx.Message == "" {
			return fmt.Errorf("market: %s: transaction %d has no message", ep, i)
		}
	}
	return nil
}
