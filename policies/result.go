package policies

import (
	"encoding/json"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// Result is what one evaluation of one policy decided.
type Result struct {
	Policy string
	Kind   Kind
	// Now is the evaluation time.
	Now time.Time
	// Actions are the planned actions, ordered by target key.
	Actions []Action
	// Skipped are the targets whose condition held (or whose data was
	// unusable) but that get no action, with why, ordered by target key.
	// A stale snapshot gives one entry with an empty target.
	Skipped []Skip
	// Evaluated counts the targets the policy selected and evaluated.
	Evaluated int
	// Cleared are the alert targets of State.Open whose condition the
	// evaluation found no longer holding, or that it no longer found at
	// all, ordered as evaluated. A target with data it could not use is
	// skipped, not cleared: its incident stays open.
	Cleared []Cleared
}

// skip records that target gets no action.
func (r *Result) skip(target string, why SkipReason, detail string) {
	r.Skipped = append(r.Skipped, Skip{Target: target, Reason: why, Detail: detail})
}

// Action is one planned action: everything the runtime needs to build,
// guard, sign, submit and report it.
type Action struct {
	// ID is deterministic: the sha256 (hex) of the policy, kind, target,
	// the decision's inputs and the request. The same inputs give the same
	// ID in every run; any change gives a new one.
	ID     string
	Policy string
	Kind   Kind
	// Target is the target key (loan address, position mint, request id or
	// vault address).
	Target string
	// Request is the exact write request; empty for alerts.
	Request Request
	// Bounds are what the guard lets the built transactions take.
	Bounds Bounds
	// Submit says how the transactions land.
	Submit Submit
	// DryRun plans and journals the action without signing it.
	DryRun bool
	// Reason says, in words and numbers, why.
	Reason string
	// Inputs are the decision's inputs as hashed into ID (JSON): what the
	// policy saw of the target (a repay's ledger, health and write
	// version), for the check after the action lands.
	Inputs json.RawMessage
	// Notify names who hears about the action.
	Notify Notify
	// Alert is the notification of an alert policy; nil otherwise.
	Alert *Alert
	// Authority is the policy's: a Squads multisig to propose to, or none.
	Authority Authority
}

// Alert is the notification an alert policy plans.
type Alert struct {
	Severity Severity
	Message  string
}

// Request is the write request of an action: exactly one member is set,
// except for alerts, which have none.
type Request struct {
	// BuildLoan is E2 (repay).
	BuildLoan *market.BuildLoanRequest `json:"buildLoan,omitempty"`
	// TransferPosition is E4 (rebalance).
	TransferPosition *market.TransferPositionRequest `json:"transferPosition,omitempty"`
	// ClaimFees is E8 (claim-fees).
	ClaimFees *market.ClaimFeesRequest `json:"claimFees,omitempty"`
	// WithdrawClaim is E10 (claim-withdrawals).
	WithdrawClaim *market.WithdrawClaimRequest `json:"withdrawClaim,omitempty"`
	// StrategyUpdate is E1 (strategy-update).
	StrategyUpdate *market.StrategyUpdateRequest `json:"strategyUpdate,omitempty"`
	// WithdrawStrategy is E9 (strategy-withdraw).
	WithdrawStrategy *market.WithdrawStrategyRequest `json:"withdrawStrategy,omitempty"`
	// CollateralRepay is a repay paid from collateral: the action path asks
	// the aggregator for the swap, then E2 for the build.
	CollateralRepay *CollateralRepay `json:"collateralRepay,omitempty"`
}

// Body returns the member that is set, or nil.
func (r Request) Body() any {
	body, _ := r.member()
	return body
}

// Endpoint names the spec endpoint of the request (E1, E2, E4, E8, E9,
// E10), or "" for none.
func (r Request) Endpoint() string {
	_, endpoint := r.member()
	return endpoint
}

// member returns the member that is set and its spec endpoint; nil and ""
// for none.
func (r Request) member() (body any, endpoint string) {
	switch {
	case r.BuildLoan != nil:
		return r.BuildLoan, "E2"
	case r.TransferPosition != nil:
		return r.TransferPosition, "E4"
	case r.ClaimFees != nil:
		return r.ClaimFees, "E8"
	case r.WithdrawClaim != nil:
		return r.WithdrawClaim, "E10"
	case r.StrategyUpdate != nil:
		return r.StrategyUpdate, "E1"
	case r.WithdrawStrategy != nil:
		return r.WithdrawStrategy, "E9"
	case r.CollateralRepay != nil:
		return r.CollateralRepay, "E2"
	}
	return nil, ""
}

// Bounds are what an action's transactions may take from the wallet, as
// the guard checks them against simulation.
type Bounds struct {
	// MaxOutflow caps the token outflow per mint, in smallest units. A mint
	// not listed may not flow out at all.
	MaxOutflow map[string]uint64
	// MaxLamports caps the SOL the market-built transactions take: fees
	// (Submit.MaxFeeLamports) plus rent (Submit.MaxRentLamports). keeper's
	// own Jito tip transaction is separate, capped by Submit.TipLamports.
	MaxLamports uint64
}

// SkipReason says why a target got no action.
type SkipReason string

// The skip reasons.
const (
	// SkipStale: the snapshot is older than max_data_age (or has no time).
	SkipStale SkipReason = "stale"
	// SkipDisabled: the policy is not enabled.
	SkipDisabled SkipReason = "disabled"
	// SkipFor: the condition has not held for `for` yet.
	SkipFor SkipReason = "for"
	// SkipInFlight: an earlier action on the target is not settled.
	SkipInFlight SkipReason = "in_flight"
	// SkipCooldown: the last action on the target is within the cooldown.
	SkipCooldown SkipReason = "cooldown"
	// SkipRunCap: the run already planned max_actions_per_run actions.
	SkipRunCap SkipReason = "run_cap"
	// SkipDailyCap: a daily cap per mint leaves too little.
	SkipDailyCap SkipReason = "daily_cap"
	// SkipFeeCap: the daily fee cap leaves too little.
	SkipFeeCap SkipReason = "fee_cap"
	// SkipNoData: the target's data is missing or unusable.
	SkipNoData SkipReason = "no_data"
	// SkipUnit: an amount of the policy is written in another token than
	// the one the target spends (OtherTokenError): the policy can never act
	// on the target until the amount is rewritten.
	SkipUnit SkipReason = "unit"
	// SkipError: an expression or template failed on the target's facts.
	SkipError SkipReason = "error"
	// SkipNoop: the condition held but there is nothing to do.
	SkipNoop SkipReason = "noop"
)

// Skip is one target that got no action.
type Skip struct {
	Target string
	Reason SkipReason
	Detail string
}
