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
// # Fees and rewards owed
//
// The fees and rewards stored in a position account ([Position.FeesOwed],
// [PositionReward.Owed]) are brought up to date by the programs only when
// the position is touched (a liquidity change, a collection, an explicit
// update), so an untouched position shows about zero however much it
// earned. [Layout.Owed] computes what a claim made now would pay, exactly as
// each program would: the growth inside the range from the pool's global
// growth and the two boundary ticks' growth outside (held in tick-array
// accounts), minus the position's checkpoint, times its liquidity, plus the
// stored amount; the same for each reward slot. All growth values are u128
// and wrap modulo 2^128 where the programs wrap (checkpoints are often close
// to 2^128). The layouts differ in details that this package reproduces:
//
//   - layout A compares the current tick with the index stored in each tick;
//     layout B counts all growth as below an uninitialized lower tick and
//     none as above an uninitialized upper tick;
//   - layout A divides a 256-bit product by 2^64, turns a quotient of
//     u64::MAX or more into 0 and aborts on a quotient wider than 128 bits
//     or an owed sum above u64 (reported as [ErrOverflow]); layout B takes a
//     128-bit product, accrues nothing when it overflows, and wraps the owed
//     sum in u64.
//
// Reward growth is taken as stored in the pool, that is as of the pool's
// last reward update: emissions since then are not added, so rewards owed
// are a lower bound of what a collection pays.
//
// Tick arrays are PDAs of seeds ["tick_array", pool, start] where start is
// the array's first tick, rounded toward −∞ to a multiple of 60 × spacing
// (layout A, encoded as a big-endian i32) or 88 × spacing (layout B, encoded
// as a decimal string). Layout B has two account formats at that address,
// fixed and dynamic (resized as ticks are initialized), told apart by
// discriminator; [Layout.DecodeTickArray] reads both.
//
// # Reading from chain
//
// [Reader] fetches every position, pool and boundary tick array of a batch
// in one [AccountFetcher] call, reading each account once however many
// positions share it, so the four accounts of a position are consistent.
// Which tick arrays a position needs depends on its range, stored in the
// position: the first read of a position therefore takes a second call,
// which reads position, pool and tick arrays again together; the Reader
// remembers the arrays (and every address it derived), so later reads take
// one call. Position addresses are derived from the position mint under the
// dex program (PDA seeds "position", mint), so only that program can have
// written them; the pool address the caller supplies is then checked
// against the pool recorded in the position itself, so a wrong or hostile
// pool id cannot substitute another account's bytes. Tick arrays are
// likewise read only at the addresses derived under the program, and must
// name the pool and start tick they are read for.
package clmm
