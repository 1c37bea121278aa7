package journal

import "slices"

// State is where an action is on its path. The zero value is not a valid
// state.
type State string

// The states of an action. Landed, failed, refused and skipped are final;
// expired is not, because a new attempt may follow it.
const (
	// StatePlanned is a journaled intent: nothing has been built yet.
	StatePlanned State = "planned"
	// StateBuilt means the market API returned the transactions of the open
	// attempt; nothing is signed.
	StateBuilt State = "built"
	// StateSigned means the open attempt's signatures are journaled; the
	// transactions may already be on their way.
	StateSigned State = "signed"
	// StateSubmitted means the open attempt was handed to RPC or Jito.
	StateSubmitted State = "submitted"
	// StateLanded means the chain confirmed the attempt succeeded. Final.
	StateLanded State = "landed"
	// StateFailed means the action cannot succeed: the API refused to build
	// it, simulation failed, or the transaction landed with an error. Final.
	StateFailed State = "failed"
	// StateExpired means the last attempt can never land: the chain proved
	// its blockhash expired unseen, or it was abandoned before anything was
	// signed (the build failed for a retryable reason). A new attempt may
	// follow.
	StateExpired State = "expired"
	// StateRefused means a guard or limit refused the action. Final. An
	// RPC sequence is refused from signed or submitted when the guard
	// refuses a later transaction, simulated on what the earlier ones left,
	// before its send.
	StateRefused State = "refused"
	// StateSkipped means the action was deliberately not carried out, for
	// example in a dry run. Final.
	StateSkipped State = "skipped"
)

// transitions lists, for each state, the states an action may move to.
var transitions = map[State][]State{
	StatePlanned:   {StateBuilt, StateExpired, StateFailed, StateRefused, StateSkipped},
	StateBuilt:     {StateSigned, StateExpired, StateFailed, StateRefused, StateSkipped},
	StateSigned:    {StateSubmitted, StateLanded, StateFailed, StateExpired, StateRefused},
	StateSubmitted: {StateLanded, StateFailed, StateExpired, StateRefused},
	StateExpired:   {StateBuilt, StateExpired, StateFailed, StateRefused, StateSkipped},
	StateLanded:    nil,
	StateFailed:    nil,
	StateRefused:   nil,
	StateSkipped:   nil,
}

// States returns every valid state in path order.
func States() []State {
	return []State{
		StatePlanned, StateBuilt, StateSigned, StateSubmitted, StateLanded,
		StateFailed, StateExpired, StateRefused, StateSkipped,
	}
}

// Valid reports whether s is one of the defined states.
func (s State) Valid() bool {
	_, ok := transitions[s]
	return ok
}

// Final reports whether no transition leaves s.
func (s State) Final() bool {
	next, ok := transitions[s]
	return ok && len(next) == 0
}

// InFlight reports whether an action in state s may still land: it is
// planned, built, signed or submitted.
func (s State) InFlight() bool {
	return slices.Contains(InFlightStates(), s)
}

// InFlightStates lists the states for which InFlight holds, in path order.
func InFlightStates() []State {
	return []State{StatePlanned, StateBuilt, StateSigned, StateSubmitted}
}

// CanBecome reports whether an action in state s may move to state to.
func (s State) CanBecome(to State) bool {
	return slices.Contains(transitions[s], to)
}

// Mode is how an attempt's transactions are submitted.
type Mode string

// The submit modes.
const (
	// ModeRPC sends each transaction through Solana RPC, in order.
	ModeRPC Mode = "rpc"
	// ModeBundle sends the transactions as one Jito bundle.
	ModeBundle Mode = "bundle"
)

// Valid reports whether m is a defined submit mode.
func (m Mode) Valid() bool {
	return m == ModeRPC || m == ModeBundle
}
