package chain

import (
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Outcome is what became of a submission as a whole.
type Outcome int

// Outcomes of SendAndConfirm and SendBundle.
const (
	// OutcomeUnknown: the context ended before the outcome was proven; some
	// transaction may still land. Ask Settle later.
	OutcomeUnknown Outcome = iota
	// OutcomeLanded: every transaction landed without error at the
	// client's commitment.
	OutcomeLanded
	// OutcomeFailed: a transaction landed with an error (its fee was paid);
	// see its TxResult.Err. Terminal: later transactions were not sent.
	OutcomeFailed
	// OutcomeExpired: nothing landed and every blockhash provably expired;
	// the transactions can never land, so the action may be rebuilt.
	OutcomeExpired
	// OutcomePartial: the first transactions landed, the rest provably
	// expired or were never sent (sequential RPC; in a bundle only if a
	// member was also sent on its own by someone else).
	OutcomePartial
	// OutcomeRefused: nothing was sent (a full bundle under a policy without
	// RPC fallback, or no tip transaction could be made).
	OutcomeRefused
)

// String returns the outcome's name.
func (o Outcome) String() string {
	return nameOf(int(o), "unknown", "landed", "failed", "expired", "partial", "refused")
}

// TxState is what became of one transaction.
type TxState int

// Transaction states.
const (
	TxNotSent TxState = iota // never left this process
	TxPending                // sent; neither landed nor provably expired yet
	TxLanded                 // landed without error
	TxFailed                 // landed with an error
	TxExpired                // not landed, and its blockhash provably expired
)

// String returns the state's name.
func (s TxState) String() string {
	return nameOf(int(s), "not-sent", "pending", "landed", "failed", "expired")
}

// nameOf returns names[i], or "unknown" when i is out of range.
func nameOf(i int, names ...string) string {
	if i < 0 || i >= len(names) {
		return "unknown"
	}
	return names[i]
}

// Route is how transactions were submitted.
type Route int

// Routes.
const (
	RouteRPC         Route = iota // sendTransaction, one by one
	RouteBundle                   // one Jito bundle
	RouteRPCFallback              // asked for a bundle, sent one by one through RPC per the tip policy
)

// String returns the route's name.
func (r Route) String() string {
	return nameOf(int(r), "rpc", "bundle", "rpc-fallback")
}

// TxResult is the fate of one of the caller's transactions.
type TxResult struct {
	Signature solana.Signature
	State     TxState
	Slot      uint64 // landing slot, for Landed and Failed
	// Err is a *TxError for Failed; for Expired it is the node's rejection
	// when sendTransaction refused the transaction outright; nil otherwise.
	Err error
}

// Result reports a submission: one TxResult per input transaction, in
// order (the tip transaction is reported in Bundle, not here).
type Result struct {
	Outcome Outcome
	Route   Route
	Txs     []TxResult
	// Bundle is set when a bundle was attempted.
	Bundle *BundleReport
	// Note says why a bundle fell back to RPC or was refused.
	Note string
}

// BundleReport describes the bundles submitted for one SendBundle call.
type BundleReport struct {
	// Tips lists every tip transaction made, in order; each went out in its
	// own bundle (same market transactions, higher tip).
	Tips []TipAttempt
	// LandedTip indexes Tips: the tip that landed, or -1. A landed tip is
	// paid even if the bundle later fell back to RPC.
	LandedTip int
}

// TipAttempt is one bundle submission and its tip transaction.
type TipAttempt struct {
	Signature solana.Signature // the tip transaction's signature
	Account   solana.PublicKey // the tip account paid
	Lamports  uint64
	BundleID  string // as computed locally (and returned by the engine)
	Accepted  bool   // the engine accepted the bundle
}

// summarize derives the outcome of a sequential submission.
func summarize(txs []TxResult) Outcome {
	landed := 0
	for _, t := range txs {
		switch t.State {
		case TxPending:
			return OutcomeUnknown
		case TxFailed:
			return OutcomeFailed
		case TxLanded:
			landed++
		}
	}
	switch landed {
	case len(txs):
		return OutcomeLanded
	case 0:
		return OutcomeExpired
	}
	return OutcomePartial
}

// newResult returns a Result with every transaction not sent.
func newResult(txs []Signed, route Route) Result {
	res := Result{Route: route, Txs: make([]TxResult, len(txs))}
	for i, s := range txs {
		res.Txs[i] = TxResult{Signature: s.Signature, State: TxNotSent}
	}
	return res
}

// fromStatus returns the TxResult of a transaction whose status reached
// the commitment, or false.
func fromStatus(s Status, c rpc.CommitmentType) (TxResult, bool) {
	if !s.Reached(c) {
		return TxResult{}, false
	}
	if s.Err != nil {
		return TxResult{Signature: s.Signature, State: TxFailed, Slot: s.Slot,
			Err: &TxError{Signature: s.Signature.String(), Slot: s.Slot, Err: s.Err}}, true
	}
	return TxResult{Signature: s.Signature, State: TxLanded, Slot: s.Slot}, true
}
