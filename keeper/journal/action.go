package journal

import (
	"encoding/json"
	"strconv"
	"time"
)

// Intent is what the keeper decided to do, as journaled by Begin.
type Intent struct {
	// ID is the deterministic action ID chosen by the caller (policy,
	// target and decision inputs); it is the dedup key. Required.
	ID string
	// Policy is the name of the policy that planned the action. Required.
	Policy string
	// Kind is the policy kind, for example "repay". Required.
	Kind string
	// Target is what the action acts on, for example a loan address.
	Target string
	// Inputs are the decision inputs as JSON; empty is stored as null.
	Inputs json.RawMessage
	// Reason is a human-readable explanation of the decision.
	Reason string
	// DryRun marks an action that must never be signed.
	DryRun bool
	// Mint is the token the action may spend; empty when it spends none.
	Mint string
	// Amount is the most the action may spend of Mint, in base units.
	Amount uint64
}

// Action is a journaled intent with its state and attempts.
type Action struct {
	Intent
	// State is where the action is on its path.
	State State
	// AttemptCount is the number of attempts started so far.
	AttemptCount int
	// Rule names the guard, limit or error class behind a refusal or
	// failure; empty otherwise.
	Rule Rule
	// Detail explains the last settlement in words.
	Detail string
	// CreatedAt is when Begin journaled the intent (UTC).
	CreatedAt time.Time
	// UpdatedAt is when the action last changed (UTC).
	UpdatedAt time.Time
	// SettledAt is when the action reached a final state; zero before.
	SettledAt time.Time
	// Attempts holds every attempt, oldest first.
	Attempts []Attempt
}

// Resumable reports an action that nothing of is in flight and that its
// policy carries on as the same action when it plans it again: expired
// (every attempt provably failed to land), or planned without an attempt
// (a crash right after the intent was journaled). Such an action neither
// holds its target as in flight nor starts the target's cooldown, nor
// counts toward the day's spend: otherwise a crash or an expiry would hold
// back the action it interrupted for a whole cooldown, or, for a bare
// intent, forever.
func (a Action) Resumable() bool {
	return a.State == StateExpired || a.State == StatePlanned && a.AttemptCount == 0
}

// OpenAttempt returns the attempt that has not been settled yet, if any.
func (a Action) OpenAttempt() (Attempt, bool) {
	if n := len(a.Attempts); n > 0 && a.Attempts[n-1].Outcome == "" {
		return a.Attempts[n-1], true
	}
	return Attempt{}, false
}

// Attempt is one try at carrying out an action: one build, one set of
// signatures, one submission.
type Attempt struct {
	// ActionID is the ID of the action the attempt belongs to.
	ActionID string
	// Number counts the action's attempts from 1.
	Number int
	// IdempotencyKey is the market API's Idempotent-Key for this attempt:
	// the action ID, "-", and the attempt number.
	IdempotencyKey string
	// Mode is how the transactions are submitted; empty until built.
	Mode Mode
	// Transactions are the built transactions (base64), in order.
	Transactions []string
	// Signatures are the signed transactions, in submission order;
	// journaled before anything is sent.
	Signatures []SignedTx
	// Tips are keeper's own Jito tip transactions signed for the attempt's
	// bundles, in the order they were journaled (each before it was sent).
	// At most one of them can land; see CountedTip.
	Tips []Tip
	// TipLamports is the Jito tip: planned while in flight, paid once
	// settled.
	TipLamports uint64
	// FeeLamports is the network fee paid, known once settled.
	FeeLamports uint64
	// Outcome is the state the attempt settled in; empty while open.
	Outcome State
	// Rule and Detail explain the outcome, as given to Settle.
	Rule   Rule
	Detail string
	// CreatedAt is when NewAttempt started the attempt (UTC).
	CreatedAt time.Time
	// BuiltAt, SignedAt, SubmittedAt and SettledAt are when each step was
	// recorded (UTC); zero until then.
	BuiltAt, SignedAt, SubmittedAt, SettledAt time.Time
}

// Build is what the market API returned for an attempt.
type Build struct {
	// Transactions are the built transactions (base64), in order. At least
	// one is required.
	Transactions []string
	// Mode is how they will be submitted. Required.
	Mode Mode
	// TipLamports is the tip the keeper plans to pay (bundle mode); it
	// counts towards the daily fees while the attempt is in flight.
	TipLamports uint64
}

// SignedTx is one signed transaction of an attempt.
type SignedTx struct {
	// Signature is the transaction's first signature (base58), which is its
	// ID on chain. Required and unique across the journal.
	Signature string
	// Blockhash is the recent blockhash the transaction was built with
	// (base58). Required.
	Blockhash string
	// LastValidBlockHeight is the last block height at which the blockhash
	// is valid; 0 when unknown.
	LastValidBlockHeight uint64
	// Transaction is the signed wire transaction (base64), so recovery can
	// rebroadcast the same bytes; empty when not kept.
	Transaction string
}

// Outcome is how an attempt or action settled.
type Outcome struct {
	// State is the state to settle in.
	State State
	// Rule names the guard, limit or error class behind a refusal or
	// failure.
	Rule Rule
	// Detail explains the outcome in words.
	Detail string
	// FeeLamports is the network fee paid by the attempt.
	FeeLamports uint64
	// TipLamports is the Jito tip paid by the attempt.
	TipLamports uint64
}

// Filter selects actions for List. Zero fields do not filter.
type Filter struct {
	// Policy keeps only actions of this policy.
	Policy string
	// Target keeps only actions on this target.
	Target string
	// Since keeps actions created at or after this time.
	Since time.Time
	// Until keeps actions created before this time.
	Until time.Time
	// States keeps only actions in one of these states.
	States []State
	// Limit caps the number of actions returned (newest first).
	Limit int
}

// idempotencyKey returns the market API key for attempt n of action id.
func idempotencyKey(id string, n int) string {
	return id + "-" + strconv.Itoa(n)
}
