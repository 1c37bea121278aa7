package market

import "strconv"

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
