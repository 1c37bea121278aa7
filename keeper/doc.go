// Package keeper is the daemon runtime: it schedules policy runs, observes
// the market and the chain, evaluates policies, and takes every resulting
// action along one path: dedup and limits, a durable journal entry, a build
// through the market API with an idempotency key, the transaction guard,
// signing, submission and confirmation, and a recorded outcome. On start it
// settles every journaled action that is not final before the first tick.
//
// The runtime declares the interfaces it consumes (Market, Signer,
// Submitter, Journal); the concrete implementations live in keeper/market,
// signer, keeper/chain and keeper/journal.
package keeper
