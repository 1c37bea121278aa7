package market

import (
	"strconv"

	json "github.com/go-json-experiment/json/v1"
)

// Earn actions carried by EarnTxResponse.Action.
const (
	// EarnActionWithdrawClaim is the action of E10's response.
	EarnActionWithdrawClaim = "withdrawClaim"
	// EarnActionWithdrawRequest is the action of the withdraw-request builder's response (assumed).
	EarnActionWithdrawRequest = "withdrawRequest"
)

// WithdrawClaimRequest is the body of E10 (POST gateway/earn/vaults/withdraw_claim/tx). Address is the
// earn vault, Wallet the wallet that opened the request, RequestID the withdrawal request account.
// An empty Provider is sent as the configured provider (default provider-a).
type WithdrawClaimRequest struct {
	Address   string `json:"address"`
	Wallet    string `json:"wallet"`
	RequestID string `json:"requestId"`
	Provider  string `json:"provider,omitempty"`
}

// EarnTxResponse is the earn transaction response (E10 and the withdraw-request builder): the action,
// the echoed request id, and TxBase64s, which the caller signs and sends in array order as one bundle.
// Address, Wallet and Amount are assumed members (docs/assumptions.md); Raw holds the JSON as received.
type EarnTxResponse struct {
	Action    string          `json:"action"`
	Address   string          `json:"address,omitempty"`
	Wallet    string          `json:"wallet,omitempty"`
	RequestID string          `json:"requestId,omitempty"`
	Amount    *Amount         `json:"amount,omitempty"`
	TxBase64s []string        `json:"txBase64s"`
	Raw       json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the response and keeps its raw JSON in Raw.
func (r *EarnTxResponse) UnmarshalJSON(b []byte) error {
	type plain EarnTxResponse
	return decodeKeepingRaw(b, (*plain)(r), func(p *plain) *json.RawMessage { return &p.Raw })
}

// EarnWithdrawRequest is the body of the withdraw-request builder (assumed path
// gateway/earn/vaults/withdraw_request/tx): it queues a withdrawal of Amount (underlying smallest units)
// from earn vault Address for Wallet. An empty Provider is sent as the configured provider.
type EarnWithdrawRequest struct {
	Address  string `json:"address"`
	Wallet   string `json:"wallet"`
	Amount   Amount `json:"amount"`
	Provider string `json:"provider,omitempty"`
}

// EarnPositionRequest is the body of the earn-position read (assumed path gateway/earn/vaults/position).
type EarnPositionRequest struct {
	Address  string `json:"address"`
	Wallet   string `json:"wallet"`
	Provider string `json:"provider,omitempty"`
}

// EarnPosition is a wallet's position in one earn vault (assumed shape around the spec's
// openWithdrawalRequests[].onChainRequestAddr). Shares and Assets are smallest units.
type EarnPosition struct {
	Address                string                  `json:"address"`
	Wallet                 string                  `json:"wallet"`
	Shares                 Amount                  `json:"shares"`
	Assets                 Amount                  `json:"assets"`
	OpenWithdrawalRequests []OpenWithdrawalRequest `json:"openWithdrawalRequests"`
}

// OpenWithdrawalRequest is one open withdrawal request of an earn position. OnChainRequestAddr is the
// request account, the requestId E10 takes.
type OpenWithdrawalRequest struct {
	OnChainRequestAddr string   `json:"onChainRequestAddr"`
	RequestedAmount    Amount   `json:"requestedAmount"`
	CreatedTime        UnixTime `json:"createdTime"`
}

// WithdrawalQueueRequest is the body of the withdrawal-queue read (assumed path
// gateway/earn/vaults/withdraw_queue). An empty Wallet lists every wallet's requests.
type WithdrawalQueueRequest struct {
	Address  string `json:"address"`
	Wallet   string `json:"wallet,omitempty"`
	Provider string `json:"provider,omitempty"`
}

// WithdrawalQueue is an earn vault's withdrawal queue (assumed shape).
type WithdrawalQueue struct {
	Address  string              `json:"address"`
	Requests []WithdrawalRequest `json:"requests"`
}

// WithdrawalRequest is one queued earn withdrawal (assumed shape). RequestID is the request account
// (the same value as OnChainRequestAddr). Amounts are underlying smallest units: how much was
// requested, how much the queue has filled, and how much has been claimed.
type WithdrawalRequest struct {
	RequestID       string   `json:"requestId"`
	Wallet          string   `json:"wallet"`
	RequestedAmount Amount   `json:"requestedAmount"`
	FilledAmount    Amount   `json:"filledAmount"`
	ClaimedAmount   Amount   `json:"claimedAmount"`
	Cancelled       bool     `json:"cancelled"`
	CreatedTime     UnixTime `json:"createdTime"`
}

// WithdrawalState is the state of a queued withdrawal, derived from its amounts:
// open → partially filled → filled → claimed, or cancelled.
type WithdrawalState int

// Withdrawal states.
const (
	WithdrawalOpen WithdrawalState = iota
	WithdrawalPartiallyFilled
	WithdrawalFilled
	WithdrawalClaimed
	WithdrawalCancelled
)

// String returns the state's name.
func (s WithdrawalState) String() string {
	switch s {
	case WithdrawalOpen:
		return "open"
	case WithdrawalPartiallyFilled:
		return "partially-filled"
	case WithdrawalFilled:
		return "filled"
	case WithdrawalClaimed:
		return "claimed"
	case WithdrawalCancelled:
		return "cancelled"
	}
	return "withdrawalState(" + strconv.Itoa(int(s)) + ")"
}

// State derives the request's state. A claim settles the whole request, so any claimed amount means
// claimed; otherwise a cancelled request is cancelled; otherwise the filled amount against the
// requested amount decides (a zero-amount request counts as open, never as filled).
func (r WithdrawalRequest) State() WithdrawalState {
	switch {
	case r.ClaimedAmount > 0:
		return WithdrawalClaimed
	case r.Cancelled:
		return WithdrawalCancelled
	case r.RequestedAmount > 0 && r.FilledAmount >= r.RequestedAmount:
		return WithdrawalFilled
	case r.FilledAmount > 0:
		return WithdrawalPartiallyFilled
	}
	return WithdrawalOpen
}

// Claimable reports whether the request is fully filled and not yet claimed: the only state in which
// it should be claimed.
func (r WithdrawalRequest) Claimable() bool { return r.State() == WithdrawalFilled }

// checkAnswer requires the queue's list of requests (possibly empty) and an id on every request: an
// absent list would read as "nothing to claim" and silently stop every claim.
func (q *WithdrawalQueue) checkAnswer() error {
	if err := requireMember("requests", q.Requests != nil); err != nil {
		return err
	}
	return requireEach("requests", q.Requests, "requestId", func(r *WithdrawalRequest) string { return r.RequestID })
}

// checkAnswer requires the position's list of open withdrawal requests (possibly empty) and the
// request account of each.
func (p *EarnPosition) checkAnswer() error {
	if err := requireMember("openWithdrawalRequests", p.OpenWithdrawalRequests != nil); err != nil {
		return err
	}
	return requireEach("openWithdrawalRequests", p.OpenWithdrawalRequests, "onChainRequestAddr",
		func(r *OpenWithdrawalRequest) string { return r.OnChainRequestAddr })
}
