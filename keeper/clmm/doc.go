// Package clmm reads concentrated-liquidity (CLMM) pool and position state
// from Solana account bytes, for the rebalance and claim-fees policies.
//
// Two account layouts are supported, named by their stand-in vendor names:
// "dex-a" (layout A) and "dex-b" (layout B). Both are Anchor accounts: an
// 8-byte discriminator, sha256("account:<StructName>")[:8], followed by
// little-endian fields at fixed offsets. Each layout sits behind the [Layout]
// interface; a [Dex] pairs a layout with the program id that owns its
// accounts. Program ids always come from the caller (config or simulator):
// this package hard-codes none.
//
// Decoding checks the discriminator and the exact account length (a different
// length means a different account version, whose offsets cannot be trusted)
// and the basic invariants of the decoded values (tick bounds, a non-zero
// tick spacing, lower tick below upper tick). Every error is an
// [*AccountError] that names the dex, the kind of account, its address when
// known, and what is wrong. Encoding writes the same structures back into
// account bytes, so a simulator can serve them.
//
// # Prices and ticks
//
// A pool's price is token 1 per token 0. The raw price (base units) is
// (sqrt_price_x64 / 2^64)^2 and the price at tick i is 1.0001^i. The price in
// whole tokens multiplies the raw price by 10^(decimals0 - decimals1). Layout
// A stores both mints' decimals in the pool; layout B does not, so callers
// take them from the mint accounts or the market API.
//
// Ranges are half-open: a position is in range when lower <= current < upper,
// as on chain. New ranges are aligned to the pool's tick spacing, at least one
// spacing wide and within the usable ticks of ±443636 (see [CenteredRange]
// for the rounding rules).
//
// # Fees owed
//
// [Position.FeesOwed] reports the fees stored in the position account. The
// programs only bring that figure up to date when the position is touched
// (liquidity change, fee collection, or an explicit update), so it is a lower
// bound of what a claim would pay out. The exact figure needs the pool's
// global fee growth, the fee-growth-outside values of the two boundary ticks
// (held in tick-array accounts, at layout-specific offsets) and the
// position's fee-growth checkpoint. We use the stored value: it needs no
// extra account reads, it never overstates what a claim is worth (so a
// claim-fees threshold never fires on fees that are not there), and a claim
// made after the figure went stale simply collects more than planned.
//
// # Reading from chain
//
// [Reader] fetches every position and pool account of a batch in one
// [AccountFetcher] call, reading each pool once however many positions share
// it. Position addresses are derived from the position mint under the dex
// program (PDA seeds "position", mint), so only that program can have written
// them; the pool address the caller supplies is then checked against the pool
// recorded in the position itself, so a wrong or hostile pool id cannot
// substitute another account's bytes.
package clmm
