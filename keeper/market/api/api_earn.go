package api

import (
	"cmp"
	"context"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
)

// ClaimEarnWithdrawal calls E10 (gateway/earn/vaults/withdraw_claim/tx) for a filled withdrawal
// request. An empty Provider is sent as the configured provider. The response's txBase64s are to be
// signed and sent in array order as one bundle. A response for another request id or action is refused.
func (c *Client) ClaimEarnWithdrawal(ctx context.Context, key market.IdempotencyKey, req market.WithdrawClaimRequest) (*market.EarnTxResponse, error) {
	req.Provider = cmp.Or(req.Provider, c.Provider())
	out, err := fetch[market.EarnTxResponse](ctx, c.t, market.EndpointWithdrawClaim, key, req)
	if err != nil {
		return nil, err
	}
	return out, checkEarnTx(market.EndpointWithdrawClaim, out, market.EarnActionWithdrawClaim, req.RequestID)
}

// RequestEarnWithdrawal calls the withdraw-request builder (assumed path, see Paths) to queue a
// withdrawal. The response's RequestID is the new request account.
func (c *Client) RequestEarnWithdrawal(ctx context.Context, key market.IdempotencyKey, req market.EarnWithdrawRequest) (*market.EarnTxResponse, error) {
	req.Provider = cmp.Or(req.Provider, c.Provider())
	out, err := fetch[market.EarnTxResponse](ctx, c.t, market.EndpointEarnWithdrawRequest, key, req)
	if err != nil {
		return nil, err
	}
	return out, checkEarnTx(market.EndpointEarnWithdrawRequest, out, market.EarnActionWithdrawRequest, "")
}

// EarnPosition reads a wallet's earn position (assumed path, see Paths), including the open
// withdrawal requests' onChainRequestAddr.
func (c *Client) EarnPosition(ctx context.Context, req market.EarnPositionRequest) (*market.EarnPosition, error) {
	req.Provider = cmp.Or(req.Provider, c.Provider())
	return fetch[market.EarnPosition](ctx, c.t, market.EndpointEarnPosition, "", req)
}

// WithdrawalQueue reads an earn vault's withdrawal queue (assumed path, see Paths), showing how much of
// each request is filled. The answer is decoded by the member names of Options.Fields.WithdrawalQueue;
// an answer that lacks the list or a request's id under those names is a decode error.
func (c *Client) WithdrawalQueue(ctx context.Context, req market.WithdrawalQueueRequest) (*market.WithdrawalQueue, error) {
	req.Provider = cmp.Or(req.Provider, c.Provider())
	out := market.WithdrawalQueueAnswer{Fields: c.opts.Fields.WithdrawalQueue}
	if err := call(ctx, c.t, market.EndpointWithdrawalQueue, "", req, &out); err != nil {
		return nil, err
	}
	return &out.Queue, nil
}

// checkEarnTx refuses an earn transaction response without transactions, with another action, or
// echoing another request id.
func checkEarnTx(ep string, r *market.EarnTxResponse, action, requestID string) error {
	switch {
	case len(r.TxBase64s) == 0:
		return fmt.Errorf("market: %s: response holds no transaction", ep)
	case r.Action != "" && r.Action != action:
		return fmt.Errorf("market: %s: response action is %q, want %q", ep, market.Echo(r.Action), action)
	case requestID != "" && r.RequestID != "" && r.RequestID != requestID:
		return fmt.Errorf("market: %s: response is for request %q, want %q", ep, market.Echo(r.RequestID), requestID)
	}
	for i, tx := range r.TxBase64s {
		if tx == "" {
			return fmt.Errorf("market: %s: transaction %d is empty", ep, i)
		}
	}
	return nil
}
