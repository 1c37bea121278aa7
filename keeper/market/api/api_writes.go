package api

import (
	"context"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
)

// builds is the client's service for the transaction builders of loans, strategies and CLMM
// positions. Each build takes the attempt's idempotency key; a retried build with the same key replays.
type builds struct {
	t *transport
}

// UpdateStrategy calls E1 (strategy update) and returns its transactions, to be signed and sent in
// array order. Large collateral-term updates come back as several transactions.
func (b *builds) UpdateStrategy(ctx context.Context, key market.IdempotencyKey, req market.StrategyUpdateRequest) ([]market.Transaction, error) {
	out, err := fetch[[]market.Transaction](ctx, b.t, market.EndpointUpdateStrategy, key, req)
	if err != nil {
		return nil, err
	}
	return *out, checkTransactions(market.EndpointUpdateStrategy, *out)
}

// BuildLoan calls E2 (loan build), e.g. a repay step, and returns the loan and its transactions.
func (b *builds) BuildLoan(ctx context.Context, key market.IdempotencyKey, req market.BuildLoanRequest) (*market.BuildLoanResponse, error) {
	out, err := fetch[market.BuildLoanResponse](ctx, b.t, market.EndpointBuildLoan, key, req)
	if err != nil {
		return nil, err
	}
	return out, checkTransactions(market.EndpointBuildLoan, out.Transactions)
}

// TransferPosition calls E4 (dex-a CLMM transfer_position) and returns its one transaction.
func (b *builds) TransferPosition(ctx context.Context, key market.IdempotencyKey, req market.TransferPositionRequest) (*market.Transaction, error) {
	return postTransaction(ctx, b.t, market.EndpointTransferPosition, key, req)
}

// ClaimFees calls E8 (dex-b CLMM claim_fees) and returns its one transaction.
func (b *builds) ClaimFees(ctx context.Context, key market.IdempotencyKey, req market.ClaimFeesRequest) (*market.Transaction, error) {
	return postTransaction(ctx, b.t, market.EndpointClaimFees, key, req)
}

// WithdrawFromStrategy calls E9 (strategy withdraw) and returns its one transaction.
func (b *builds) WithdrawFromStrategy(ctx context.Context, key market.IdempotencyKey, req market.WithdrawStrategyRequest) (*market.Transaction, error) {
	return postTransaction(ctx, b.t, market.EndpointWithdrawStrategy, key, req)
}

// postTransaction checks and posts a write whose response is one transaction object.
func postTransaction(ctx context.Context, t *transport, ep string, key market.IdempotencyKey, req request) (*market.Transaction, error) {
	out, err := fetch[market.Transaction](ctx, t, ep, key, req)
	if err != nil {
		return nil, err
	}
	if err := checkTransactions(ep, []market.Transaction{*out}); err != nil {
		return nil, err
	}
	return out, nil
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
