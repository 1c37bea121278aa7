package market

import (
	"context"
	"fmt"
)

// UpdateStrategy calls E1 (strategy update) and returns its transactions, to be signed and sent in
// array order. Large collateral-term updates come back as several transactions.
func (c *Client) UpdateStrategy(ctx context.Context, key IdempotencyKey, req StrategyUpdateRequest) ([]Transaction, error) {
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointUpdateStrategy, err)
	}
	var out []Transaction
	if err := c.post(ctx, EndpointUpdateStrategy, key, req, &out); err != nil {
		return nil, err
	}
	return out, checkTransactions(EndpointUpdateStrategy, out)
}

// BuildLoan calls E2 (loan build), e.g. a repay step, and returns the loan and its transactions.
func (c *Client) BuildLoan(ctx context.Context, key IdempotencyKey, req BuildLoanRequest) (*BuildLoanResponse, error) {
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointBuildLoan, err)
	}
	var out BuildLoanResponse
	if err := c.post(ctx, EndpointBuildLoan, key, req, &out); err != nil {
		return nil, err
	}
	return &out, checkTransactions(EndpointBuildLoan, out.Transactions)
}

// TransferPosition calls E4 (dex-a CLMM transfer_position) and returns its one transaction.
func (c *Client) TransferPosition(ctx context.Context, key IdempotencyKey, req TransferPositionRequest) (*Transaction, error) {
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointTransferPosition, err)
	}
	return c.postTransaction(ctx, EndpointTransferPosition, key, req)
}

// ClaimFees calls E8 (dex-b CLMM claim_fees) and returns its one transaction.
func (c *Client) ClaimFees(ctx context.Context, key IdempotencyKey, req ClaimFeesRequest) (*Transaction, error) {
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointClaimFees, err)
	}
	return c.postTransaction(ctx, EndpointClaimFees, key, req)
}

// WithdrawFromStrategy calls E9 (strategy withdraw) and returns its one transaction.
func (c *Client) WithdrawFromStrategy(ctx context.Context, key IdempotencyKey, req WithdrawStrategyRequest) (*Transaction, error) {
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointWithdrawStrategy, err)
	}
	return c.postTransaction(ctx, EndpointWithdrawStrategy, key, req)
}

// postTransaction posts a write whose response is one transaction object.
func (c *Client) postTransaction(ctx context.Context, ep string, key IdempotencyKey, req any) (*Transaction, error) {
	var out Transaction
	if err := c.post(ctx, ep, key, req, &out); err != nil {
		return nil, err
	}
	if err := checkTransactions(ep, []Transaction{out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// checkTransactions refuses an empty transaction list or a transaction without a message.
func checkTransactions(ep string, txs []Transaction) error {
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
