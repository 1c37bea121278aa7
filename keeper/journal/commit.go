package journal

import "errors"

// durability is how a write step commits.
type durability int

const (
	// durable commits are fsync'd before the method returns.
	durable durability = iota
	// lazy commits are not fsync'd: a process crash keeps them (the
	// operating system holds the write), a power loss may drop them, and
	// the next durable commit carries them to disk (see writeLazy).
	lazy
	// lazyWhenSigned is lazy when the action's open attempt has its
	// signatures journaled (it is signed or submitted) and durable
	// otherwise.
	lazyWhenSigned
)

// errNeedsDurable stops a lazyWhenSigned step whose attempt holds no
// signatures, so that it runs again as a durable one.
var errNeedsDurable = errors.New("journal: the record must be durable")

// durability returns how Settle commits out. An outcome the chain decides
// and recovery re-derives from it, landed or expired because every
// blockhash expired unseen, commits lazily once the attempt's signatures
// are journaled: if a power loss drops the record, the attempt is open
// again with those signatures, and recovery asks the chain about them
// before the first tick and settles it the same way, which is what it does
// when the crash comes just before Settle. Everything else is durable:
// refusals, skips and expiries before signing are decisions the chain
// cannot give back, and a failure, even one the chain shows, recovery may
// judge otherwise (a failed transaction midway through an RPC sequence is
// a partial expiry to it). Nothing signed leaves the process after a
// lazy outcome before a durable commit carries it (every send follows a
// durable RecordSigned); a build for a new attempt may, as after any lazy
// NewAttempt, and a power loss then makes recovery number that attempt
// again, so the market sees the same idempotency key and replays it. What
// a power loss can repeat is the report of a lost outcome (metrics, the
// log line, a notification), when recovery settles it again.
func (out Outcome) durability() durability {
	switch {
	case out.State == StateLanded:
		return lazyWhenSigned
	case out.State == StateExpired && out.Rule == RuleBlockhashExpired:
		return lazyWhenSigned
	}
	return durable
}

// signed reports whether the action's open attempt has its signatures
// journaled: only RecordSigned moves an action to signed, and submitted
// follows signed.
func (h head) signed() bool {
	return h.state == StateSigned || h.state == StateSubmitted
}
