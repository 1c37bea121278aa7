// Package failpoint names the points of keeper's action path at which a crash test kills the
// process, so that every window between two durable steps can be crashed in deterministically.
//
// The points do nothing in a normal build. A binary built with the build tag "failpoint" reads the
// environment variable KEEPER_FAILPOINT once: "NAME" kills the process with SIGKILL the first time
// point NAME is reached, "NAME:N" the N-th time. Nothing is flushed or closed: the process dies as it
// would on a power cut, and the journal and the chain are all that is left. A suffix "@stop"
// ("NAME@stop", "NAME:N@stop") freezes the process with SIGSTOP there instead, as a VM paused by its
// host would be, until a SIGCONT lets it go on from that point.
//
// In proposal mode (a policy whose authority is a Squads multisig) the transaction that creates the
// proposal and keeper's execution of it, in a later pass, each pass AfterSign, AfterSignatures,
// AfterSend and AfterConfirm as a direct transaction does (examples/e2e_multisig_test.go kills there).
package failpoint

// Env is the environment variable a failpoint build reads.
const Env = "KEEPER_FAILPOINT"

// The points, in the order an action passes them.
const (
	// AfterIntent: the intent is journaled, nothing has been built.
	AfterIntent = "after-intent"
	// AfterBuild: the market's answer is journaled, no signature is (the guard may be simulating
	// meanwhile: the build's record is written beside it).
	AfterBuild = "after-build"
	// AfterSign: the transactions are signed and their signatures not yet journaled.
	AfterSign = "after-sign"
	// AfterSignatures: the signatures are journaled, nothing is sent.
	AfterSignatures = "after-signatures"
	// AfterSend: a transaction or bundle was sent, its confirmation not awaited.
	AfterSend = "after-send"
	// AfterConfirm: the chain's verdict is known and not yet journaled.
	AfterConfirm = "after-confirm"
	// BeforeOutcome: the outcome is about to be journaled.
	BeforeOutcome = "before-outcome"
	// InRecovery: recovery is about to settle a journaled action.
	InRecovery = "in-recovery"
)

// Points lists every point, in action-path order.
var Points = []string{AfterIntent, AfterBuild, AfterSign, AfterSignatures, AfterSend, AfterConfirm, BeforeOutcome, InRecovery}
