package apiwire

import "fmt"

// DefaultWithdrawalQueueFields returns the assumed member names, those of WithdrawalQueue's JSON tags.
func DefaultWithdrawalQueueFields() WithdrawalQueueFields {
	return WithdrawalQueueFields{
		Requests:    "requests",
		RequestID:   "requestId",
		Wallet:      "wallet",
		Requested:   "requestedAmount",
		Filled:      "filledAmount",
		Claimed:     "claimedAmount",
		Cancelled:   "cancelled",
		CreatedTime: "createdTime",
	}
}

// WithdrawalQueueFields names the members of the withdrawal-queue answer. The spec does not show that
// answer, so every name is an assumption (docs/assumptions.md M-24) that a deployment can override.
// An empty member takes its default from DefaultWithdrawalQueueFields.
type WithdrawalQueueFields struct {
	// Requests is the answer's list of requests. Default "requests".
	Requests string
	// RequestID is a request's id, the request account. Default "requestId".
	RequestID string
	// Wallet is the wallet that opened a request. Default "wallet".
	Wallet string
	// Requested, Filled and Claimed are a request's amounts. Defaults "requestedAmount",
	// "filledAmount" and "claimedAmount".
	Requested string
	Filled    string
	Claimed   string
	// Cancelled says a request was cancelled. Default "cancelled".
	Cancelled string
	// CreatedTime is when a request was opened. Default "createdTime".
	CreatedTime string
}

// EarnActionWithdrawClaim is the action of E10's response.
const EarnActionWithdrawClaim = "withdrawClaim"

// EarnPosition is a wallet's position in one earn vault (assumed shape around the spec's
// openWithdrawalRequests[].onChainRequestAddr). Shares and Assets are smallest units.
type EarnPosition struct {
	Address                string                  `json:"address"`
	Wallet                 string                  `json:"wallet"`
	Shares                 Amount                  `json:"shares"`
	Assets                 Amount                  `json:"assets"`
	OpenWithdrawalRequests []OpenWithdrawalRequest `json:"openWithdrawalRequests"`
}

// EarnPositionRequest is the body of the earn-position read (assumed path gateway/earn/vaults/position).
type EarnPositionRequest struct {
	Address  string `json:"address"`
	Wallet   string `json:"wallet"`
	Provider string `json:"provider,omitempty"`
}

// EarnTxResponse is the earn transaction response (E10 and the withdraw-request builder): the action,
// the echoed request id, and TxBase64s, which the caller signs and sends in array order as one bundle.
// Address, Wallet and Amount are assumed members (docs/assumptions.md).
type EarnTxResponse struct {
	Action    string   `json:"action"`
	Address   string   `json:"address,omitempty"`
	Wallet    string   `json:"wallet,omitempty"`
	RequestID string   `json:"requestId,omitempty"`
	Amount    *Amount  `json:"amount,omitempty"`
	TxBase64s []string `json:"txBase64s"`
}

// OpenWithdrawalRequest is one open withdrawal request of an earn position. OnChainRequestAddr is the
// request account, the requestId E10 takes.
type OpenWithdrawalRequest struct {
	OnChainRequestAddr string   `json:"onChainRequestAddr"`
	RequestedAmount    Amount   `json:"requestedAmount"`
	CreatedTime        UnixTime `json:"createdTime"`
}

// WithdrawClaimRequest is the body of E10 (POST gateway/earn/vaults/withdraw_claim/tx). Address is the
// earn vault, Wallet the wallet that opened the request, RequestID the withdrawal request account.
// An empty Provider means provider-a, the only one supported.
type WithdrawClaimRequest struct {
	Address   string `json:"address"`
	Wallet    string `json:"wallet"`
	RequestID string `json:"requestId"`
	Provider  string `json:"provider,omitempty"`
}

// WithdrawalQueue is an earn vault's withdrawal queue (assumed shape).
type WithdrawalQueue struct {
	Address  string              `json:"address"`
	Requests []WithdrawalRequest `json:"requests"`
}

// WithdrawalQueueRequest is the body of the withdrawal-queue read (assumed path
// gateway/earn/vaults/withdraw_queue). An empty Wallet lists every wallet's requests.
type WithdrawalQueueRequest struct {
	Address  string `json:"address"`
	Wallet   string `json:"wallet,omitempty"`
	Provider string `json:"provider,omitempty"`
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

// WithDefaults returns f with each empty member name set to its default.
func (f WithdrawalQueueFields) WithDefaults() WithdrawalQueueFields {
	d := DefaultWithdrawalQueueFields()
	for _, m := range []struct {
		v   *string
		def string
	}{
		{&f.Requests, d.Requests}, {&f.RequestID, d.RequestID}, {&f.Wallet, d.Wallet},
		{&f.Requested, d.Requested}, {&f.Filled, d.Filled}, {&f.Claimed, d.Claimed},
		{&f.Cancelled, d.Cancelled}, {&f.CreatedTime, d.CreatedTime},
	} {
		if *m.v == "" {
			*m.v = m.def
		}
	}
	return f
}

// Validate checks defaulted names: none empty, the list not named "address" (the queue's own member),
// and a request's members all different, so that the answer can hold each.
func (f WithdrawalQueueFields) Validate() error {
	if f.Requests == "" || f.Requests == "address" {
		return fmt.Errorf("withdrawal queue fields: requests %q must be a name other than \"address\"", f.Requests)
	}
	seen := map[string]string{}
	for _, m := range []struct{ field, name string }{
		{"request_id", f.RequestID}, {"wallet", f.Wallet}, {"requested", f.Requested}, {"filled", f.Filled},
		{"claimed", f.Claimed}, {"cancelled", f.Cancelled}, {"created_time", f.CreatedTime},
	} {
		if other, dup := seen[m.name]; dup || m.name == "" {
			return fmt.Errorf("withdrawal queue fields: %s and %s are both %q", other, m.field, m.name)
		}
		seen[m.name] = m.field
	}
	return nil
}
