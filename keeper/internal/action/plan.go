package action

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/policies"
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
	// Request is the market write request; exactly one member is set
	// (none for a plan rebuilt from the journal, which never builds).
	Request policies.Request
	// Bounds limit what may leave the wallet, for the guard.
	Bounds signer.Bounds
	// Mint and Amount are what the action may spend, for daily caps.
	Mint   string
	Amount uint64
	Reason string
	Inputs json.RawMessage
	// Seen is what the policy saw of the target when it decided (the
	// decision's inputs, JSON), for the check after the action lands.
	Seen   json.RawMessage
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
	// Swap bounds a repay from collateral by value (nil for other plans).
	Swap *signer.SwapBounds
	// Squads is the multisig the plan proposes to (its authority); nil: the
	// plan is signed by keeper's key.
	Squads *policies.SquadsAuthority
}

// Submit says how a plan's transactions land.
type Submit struct {
	// Mode is how the transactions land; with Auto, the mode an answer
	// keeper can price through its request takes, and keeper may land an
	// answer it cannot price as a bundle instead (see buildRouted).
	Mode journal.Mode
	Auto bool
	// Percentile is the percentile of the recent blocks' compute-unit
	// prices keeper bids, and TipPercentile that of the landed tips it
	// tips (0: DefaultPercentile).
	Percentile, TipPercentile int
	// TipCap bounds the Jito tip of a bundle, in lamports (0: the config's maximum).
	TipCap uint64
}

// FromAction turns a policy's planned action into the action path's plan;
// dryRun forces dry run whatever the policy says.
func FromAction(a policies.Action, dryRun bool) Plan {
	p := Plan{ID: a.ID, Policy: a.Policy, Kind: signer.Kind(a.Kind), Target: a.Target, Request: a.Request,
		Bounds: signer.Bounds{MaxLamports: a.Bounds.MaxLamports, MaxTokens: a.Bounds.MaxOutflow,
			MaxComputeUnitPrice: a.Submit.MaxComputeUnitPrice},
		Reason: a.Reason, Submit: Submit{Mode: journal.Mode(a.Submit.Mode), TipCap: a.Submit.TipLamports},
		DryRun: a.DryRun || dryRun, Notify: a.Notify.To, NotifyOn: events(a.Notify), Squads: a.Authority.Squads}
	p.Submit.Percentile, p.Submit.TipPercentile = a.Submit.PriorityPercentile, a.Submit.TipPercentile
	if p.Submit.Mode == "" || a.Submit.Mode == policies.ModeAuto {
		p.Submit.Mode, p.Submit.Auto = journal.ModeRPC, a.Submit.Mode == policies.ModeAuto
	}
	for mint, amount := range a.Bounds.MaxOutflow {
		p.Mint, p.Amount = mint, amount // at most one mint is spent by an action
	}
	p.Inputs, _ = json.Marshal(a.Request)
	p.Seen = a.Inputs
	if cr := a.Request.CollateralRepay; cr != nil {
		p.Kind = signer.KindRepayCollateral
		if b, err := swapBounds(cr, nil); err == nil {
			p.Swap = &b
		}
	}
	return p
}

// fromJournal rebuilds enough of a plan from the journal to record
// outcomes; it carries no request, so it is never built again.
func fromJournal(act journal.Action, att journal.Attempt) Plan {
	return Plan{ID: act.ID, Policy: act.Policy, Kind: signer.Kind(act.Kind), Target: act.Target,
		Reason: act.Reason, Mint: act.Mint, Amount: act.Amount, Submit: Submit{Mode: att.Mode}}
}

func events(n policies.Notify) []notify.Event {
	out := make([]notify.Event, 0, len(n.On))
	for _, e := range n.On {
		out = append(out, notify.Event(e))
	}
	return out
}

// intent is the journal record of p.
func (p Plan) intent() journal.Intent {
	return journal.Intent{ID: p.ID, Policy: p.Policy, Kind: string(p.Kind), Target: p.Target,
		Inputs: p.Inputs, Reason: p.Reason, DryRun: p.DryRun, Mint: p.Mint, Amount: p.Amount}
}

// wants reports whether p's notifiers hear of event e.
func (p Plan) wants(e notify.Event) bool {
	if len(p.NotifyOn) == 0 {
		return e == notify.Failed || e == notify.Refused
	}
	return slices.Contains(p.NotifyOn, e)
}

// ShortID is the first twelve characters of an action ID, for logs.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
