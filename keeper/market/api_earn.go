package market

import (
	"context"
	"fmt"
)

// ClaimEarnWithdrawal calls E10 (gateway/earn/vaults/withdraw_claim/tx) for a filled withdrawal
// request. An empty Provider is sent as the configured provider. The response's txBase64s are to be
// signed and sent in array order as one bundle. A response for another request id or action is refused.
func (c *Client) ClaimEarnWithdrawal(ctx context.Context, key IdempotencyKey, req WithdrawClaimRequest) (*EarnTxResponse, error) {
	if req.Provider == "" {
		req.Provider = c.Provider()
	}
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointWithdrawClaim, err)
	}
	var out EarnTxResponse
	if err := c.post(ctx, EndpointWithdrawClaim, key, req, &out); err != nil {
		return nil, err
	}
	return &out, checkEarnTx(EndpointWithdrawClaim, &out, EarnActionWithdrawClaim, req.RequestID)
}

// RequestEarnWithdrawal calls the withdraw-request builder (assumed path, see Paths) to queue a
// withdrawal. The response's RequestID is the new request account.
func (c *Client) RequestEarnWithdrawal(ctx context.Context, key IdempotencyKey, req EarnWithdrawRequest) (*EarnTxResponse, error) {
	if req.Provider == "" {
		req.Provider = c.Provider()
	}
	if err := req.validate(); err != nil {
		return nil, invalid(EndpointEarnWithdrawRequest, err)
	}
	var out EarnTxResponse
	if err := c.post(ctx, EndpointEarnWithdrawRequest, key, req, &out); err != nil {
		return nil, err
	}
	return &out, checkEarnTx(EndpointEarnWithdrawRequest, &out, EarnActionWithdrawRequest, "")
}

// EarnPosition reads a wallet's earn position (assumed path, see Paths), including the open
// withdrawal requests' onChainRequestAddr.
func (c *Client) EarnPosition(ctx context.Context, req EarnPositionRequest) (*EarnPosition, error) {
	if req.Provider == "" {
		req.Provider = c.Provider()
	}
	if err := required("address", req.Address, "wallet", req.Wallet); err != nil {
		return nil, invalid(EndpointEarnPosition, err)
	}
	var out EarnPosition
	if err := c.post(ctx, EndpointEarnPosition, "", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// WithdrawalQueue reads an earn vault's withdrawal queue (assumed path, see Paths), showing how much of
// each request is filled.
func (c *Client) WithdrawalQueue(ctx context.Context, req WithdrawalQueueRequest) (*WithdrawalQueue, error) {
	if req.Provider == "" {
		req.Provider = c.Provider()
	}
	if err := required("address", req.Address); err != nil {
		return nil, invalid(EndpointWithdrawalQueue, err)
	}
	var out WithdrawalQueue
	if err := c.post(ctx, EndpointWithdrawalQueue, "", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// checkEarnTx refuses an earn transaction response without transactions, with another action, or
// echoing another request id.
func checkEarnTx(ep string, r *EarnTxResponse, action, requestID string) error {
	switch {
	case len(r.TxBase64s) == 0:
		return fmt.Errorf("market: %s: response holds no transaction", ep)
	case r.Action != "" && r.Action != action:
		return fmt.Errorf("market: %s: response action is %q, want %q", ep, echo(r.Action), action)
	case requestID != "" && r.RequestID != "" && r.RequestID != requestID:
		return fmt.Errorf("market: %s: response is for request %q, want %q", ep, echo(r.RequestID), requestID)
	}
	for i, tx := range r.TxBase64s {
		if tx == "" {
			return fmt.Errorf("market: %s: transaction %d is empty", ep, i)
		}
	}
	return nil
}
