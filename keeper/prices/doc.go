// Package prices reads USD prices of mints: from Pyth's pull-oracle price
// update accounts on chain, or from static prices the operator configured.
//
// A Pyth price is taken only when it can be trusted: the account is owned by
// the Pyth receiver program, carries the expected feed id and a fully
// verified update, was published no longer ago than the maximum age, and its
// confidence interval is no wider than the configured fraction of the price.
// Anything else makes the price unknown, with the reason; a caller never
// gets zero for a price it does not know.
//
// The PriceUpdateV2 layout and the sponsored feed account derivation follow
// pyth-crosschain's pyth_solana_receiver_sdk (price_update.rs) and
// pyth-push-oracle (lib.rs); docs/assumptions.md has the details.
package prices
