package keeper

import (
	"encoding/json"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/signer"
)

// Plan is one action a policy run decided to take, in the form the action
// path needs: what to build, what the guard allows, how to submit.
type Plan struct {
	// ID is deterministic: the same policy, target and decision inputs
	// give the same ID, so a crash and a re-run find the journaled action.
	ID     string
	Policy string
	Kind   signer.Kind
	Target string
	// Request is the market write request: one of market.BuildLoanRequest,
	// market.TransferPositionRequest, market.ClaimFeesRequest,
	// market.WithdrawClaimRequest, market.StrategyUpdateRequest or
	// market.WithdrawStrategyRequest.
	Request any
	// Bounds limit what may leave the wallet, for the guard.
	Bounds signer.Bounds
	// Mint and Amount are what the action may spend, for daily caps.
	Mint   string
	Amount uint64
	Reason string
	Inputs json.RawMessage
	Submit Submit
	DryRun bool
	// ReadsFrom is when the run began reading the facts it decided from: an
	// action on the target that ended after it makes the plan stale. Zero
	// skips that check.
	ReadsFrom time.Time
	// Notify names the notifiers for this policy's messages (empty: all),
	// and NotifyOn the events they hear of (empty: failed and refused).
	Notify   []string
	NotifyOn []notify.Event
}

// Submit says how a plan's transactions land.
type Submit struct {
	Mode journal.Mode
	// TipCap bounds the Jito tip of a bundle, in lamports (0: the config's maximum).
	TipCap uint64
}

// intent is the journal record of p.
func (p Plan) intent() journal.Intent {
	return journal.Intent{ID: p.ID, Policy: p.Policy, Kind: string(p.Kind), Target: p.Target,
		Inputs: p.Inputs, Reason: p.Reason, DryRun: p.DryRun, Mint: p.Mint, Amount: p.Amount}
}
