package api

import (
	"cmp"
	"context"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
)

// earn is the client's service for the earn vaults: the position and withdrawal-queue reads and the
// withdrawal builders. Requests that leave the provider empty are sent with its provider, and the
// queue's answer is read by its member names.
type earn struct {
	t           *transport
	provider    string
	queueFields market.WithdrawalQueueFields
}

// ClaimEarnWithdrawal calls E10 (gateway/earn/vaults/withdraw_claim/tx) for a filled withdrawal
// request. An empty Provider is sent as the configured provider. The response's txBase64s are to be
// signed and sent in array order as one bundle. A response for another request id or action is refused.
func (e *earn) ClaimEarnWithdrawal(ctx context.Context, key market.IdempotencyKey, req market.WithdrawClaimRequest) (*market.EarnTxResponse, error) {
	req.Provider = cmp.Or(req.Provider, e.provider)
	out, err := fetch[market.EarnTxResponse](ctx, e.t, market.EndpointWithdrawClaim, key, req)
	if err != nil {
		return nil, err
	}
	return out, checkEarnTx(market.EndpointWithdrawClaim, out, market.EarnActionWithdrawClaim, req.RequestID)
}

// RequestEarnWithdrawal calls the withdraw-request builder (assumed path, see Paths) to queue a
// withdrawal. The response's RequestID is the new request account.
func (e *earn) RequestEarnWithdrawal(ctx context.Context, key market.IdempotencyKey, req market.EarnWithdrawRequest) (*market.EarnTxResponse, error) {
	req.Provider = cmp.Or(req.Provider, e.provider)
	out, err := fetch[market.EarnTxResponse](ctx, e.t, market.EndpointEarnWithdrawRequest, key, req)
	if err != nil {
		return nil, err
	}
	return out, checkEarnTx(market.EndpointEarnWithdrawRequest, out, market.EarnActionWithdrawRequest, "")
}

// EarnPosition reads a wallet's earn position (assumed path, see Paths), including the open
// withdrawal requests' onChainRequestAddr.
func (e *earn) EarnPosition(ctx context.Context, req market.EarnPositionRequest) (*market.EarnPosition, error) {
	req.Provider = cmp.Or(req.Provider, e.provider)
	return fetch[market.EarnPosition](ctx, e.t, market.EndpointEarnPosition, "", req)
}

// WithdrawalQueue reads an earn vault's withdrawal queue (assumed path, see Paths), showing how much of
// each request is filled. The answer is decoded by the member names of Options.QueueFields;
// an answer that lacks the list or a request's id under those names is a decode error.
func (e *earn) WithdrawalQueue(ctx context.Context, req market.WithdrawalQueueRequest) (*market.WithdrawalQueue, error) {
	req.Provider = cmp.Or(req.Provider, e.provider)
	out := market.WithdrawalQueueAnswer{Fields: e.queueFields}
	if err := call(ctx, e.t, market.EndpointWithdrawalQueue, "", req, &out); err != nil {
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
