package journal

// Rule names why an attempt or an action settled as it did: the error
// class, the chain's verdict or the guard rule behind a refusal. A guard
// refusal carries the signer's rule name (signer.Rule) converted to Rule;
// every other rule keeper records is one of the constants below.
type Rule string

// The rules of the action path. Expired rules leave the action resumable;
// the others go with a final state.
const (
	// RuleNone is an outcome that needs no explanation (landed).
	RuleNone Rule = ""

	// Expired: nothing of the attempt can land, a new attempt may follow.
	RuleBlockhashExpired Rule = "blockhash-expired"      // the chain proved every signature dead
	RuleBuildRetryable   Rule = "build-retryable"        // the market's answer to a build was transient
	RuleJournal          Rule = "journal"                // a journal write failed before anything was sent
	RuleSimUnavailable   Rule = "simulation-unavailable" // no node could simulate
	RuleSimFailed        Rule = "simulation-failed"      // simulation shows the transaction failing
	RuleAbandoned        Rule = "abandoned-before-signing"
	RuleSequencePartial  Rule = "sequence-partial" // an RPC sequence stopped midway; the next attempt continues

	// Failed: the action is over and a person should look.
	RuleMaxAttempts         Rule = "max-attempts"
	RuleIdempotencyConflict Rule = "idempotency-conflict"
	RuleBuildRefused        Rule = "build-refused"
	RuleBundleRefused       Rule = "bundle-refused"
	RuleChainFailed         Rule = "chain-failed"    // a transaction landed with an error
	RuleChainPartial        Rule = "chain-partial"   // part of a submission landed with an error
	RuleLateLanding         Rule = "late-landing"    // an attempt judged expired landed after all
	RulePriceAboveCap       Rule = "price-above-cap" // the fee market or tip floor was above the action's cap

	// Refused by keeper itself before the guard's rules apply.
	RuleMalformedTransaction Rule = "malformed-transaction"
	RuleSignError            Rule = "sign-error"

	// Skipped: final, nothing (more) to do.
	RuleDryRun            Rule = "dry-run"
	RuleAlreadyClaimed    Rule = "already-claimed"          // the chain shows the withdrawal claimed
	RuleSequenceLanded    Rule = "sequence-landed"          // every transaction landed, over several attempts
	RuleSuperseded        Rule = "superseded"               // a new plan for the target replaced it
	RuleSupersededPartial Rule = "superseded-after-partial" // replaced after part of its sequence landed
)
