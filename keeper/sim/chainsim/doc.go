// Package chainsim is an in-memory Solana chain with a JSON-RPC front end and
// a Jito block engine, for tests, examples and `keeper sim`.
//
// It is not a validator. It keeps accounts in memory, derives slots and block
// heights from an injected [Clock], and executes transactions with a small set
// of built-in programs plus any [svm.Program] registered by the caller (the
// simulated lending market registers its own). Everything is deterministic
// for a given [Options.Seed], clock and sequence of calls.
//
// # Time, slots and blockhashes
//
// Slot n starts at Genesis + n × 400 ms. Every slot produces a block, so the
// block height equals the slot, unless a stall ([Ledger.Stall] or the stall
// fault) skips slots: skipped slots produce no block, the height stands
// still, nothing lands, and transactions and bundles sent meanwhile wait for
// the first block after the stall. The blockhash of the block in slot n is
// sha256("chainsim" ‖ seed ‖ n) (seed and n as 8-byte little-endian). A
// blockhash stays valid while the current block height is at most its own
// height + 150, which is the lastValidBlockHeight that [Ledger.LatestBlockhash]
// and getLatestBlockhash report.
//
// Reads at a commitment use the block that commitment sees: processed is the
// newest block, confirmed the one before it, finalized the one 32 blocks
// back. So getLatestBlockhash with the default (finalized) commitment returns
// an older blockhash, and a preflight at the default (finalized) commitment
// refuses a blockhash the finalized block has not seen yet, as a real node
// does. Account reads always see the newest (processed) state, but a
// simulation (simulateTransaction, a send's preflight, simulateBundle) runs
// on the bank of its commitment, as on a validator: on the accounts, slot
// and blockhashes of that block, so a simulation at finalized does not see
// what landed in the last 32 blocks.
//
// # Transactions
//
// A transaction is decoded (legacy or v0; address lookup tables are resolved
// from lookup-table accounts, see [Setup.CreateLookupTable]), sanitized,
// every required ed25519 signature is verified over the exact message bytes,
// the blockhash must be valid (or, with AdvanceNonceAccount first, equal the
// nonce account's value), the first signature must be new, and the fee payer
// must be a System account holding the fee: 5000 lamports per signature plus
// ceil(compute-unit price × compute-unit limit / 1e6). A transaction that
// fails these checks does not land. One that passes lands in the current
// slot (while the fee market is congested, in the first block with room
// for it; see Fee market): its instructions run against a copy-on-write
// overlay and are committed only if all succeed; the fee is charged either
// way and a failure is recorded as an instruction error. A landed
// transaction is processed at once, confirmed one block later and finalized
// 32 blocks later.
//
// Built-in programs: System (Transfer, CreateAccount, AdvanceNonceAccount),
// ComputeBudget (SetComputeUnitLimit, SetComputeUnitPrice, RequestHeapFrame,
// SetLoadedAccountsDataSizeLimit; at most one of each), Memo (v1 and v2), SPL
// Token (Transfer, TransferChecked, Approve, Revoke, SetAuthority,
// CloseAccount, Burn, BurnChecked, SyncNative) and the Associated Token
// Account program (Create, CreateIdempotent), which, as the real one, creates
// accounts of SPL Token and of Token-2022 mints (the token program is its
// sixth account and a seed of the address; a Token-2022 account carries the
// ImmutableOwner extension, 170 bytes). Token-2022's own instructions are
// not modelled. Any other program id fails its instruction with
// UnsupportedProgramId unless it was registered with [Setup.RegisterProgram].
//
// Creating an associated token account charges its payer the rent-exempt
// minimum of the account ((128 + data length) × 3,480 × 2 lamports:
// 2,039,280 for an SPL token account), as the real program does, so fee and
// outflow checks see it. With [Options.Rent] the runtime's rent rule
// applies as on a validator: a transaction whose fee leaves the fee payer,
// or whose instructions leave a writable account, with lamports above zero
// but below its rent-exempt minimum fails with InsufficientFundsForRent
// (naming the account's index), unless that account was already below the
// minimum and neither grew nor gained lamports. A fee payer's failure means
// the transaction does not land; an execution's lands failed, its fee
// charged. The simulator keeper runs against (keeper/sim) turns it on;
// without it (this package's default, for its own tests) rent is not
// checked.
//
// # Fee market
//
// [Market] models how an Agave leader fills a block (core banking stage,
// cost-model). A block has a compute budget: the cost of its transactions
// may reach [BlockLimits].Block in all and WritableAccount for those that
// write-lock any one account (60M and 24M by default, as Agave's master
// has them; 48M and 12M in releases before SIMD-0207 and SIMD-0306). A
// transaction costs 720 units per signature, 300 per writable account, one
// per 4 bytes of instruction data, its requested compute-unit limit and 8
// per 32 KiB of its loaded-accounts data size limit (64 MiB by default);
// once it has run, the units it consumed replace the limit it requested. The leader orders
// transactions by Agave's priority: what it keeps (the priority fee,
// ceil(price × limit / 1e6), and the unburnt half of the base fee) × 1e6 /
// (cost + 1), so the price a transaction must pay to beat another depends
// on its size too.
//
// With no load scheduled (the default), a transaction lands in the slot it
// is sent in, whatever it pays, and a bundle in the next slot. A scenario
// (or [Market.SetLoad]) turns on a competing [Load] from a slot on: every
// slot, other users' transactions write-lock the load's accounts, bidding
// prices drawn from its distribution, and asking a multiple of what an
// account may take. While it is on, a transaction sent in slot n waits for
// block n+1, where the leader takes the bundles that came for it, then by
// priority every waiting transaction and every transaction of the load
// that still fits the block's limits. A transaction that does not fit
// waits for the next block, until its blockhash expires; sending it again
// changes nothing. So a transaction priced under the clearing price of its
// accounts (or of the block, once the load fills it) is accepted and never
// lands, one above it lands in the next block, and one on an account
// without load lands whatever it pays while the block has room.
//
// getRecentPrioritizationFees answers as Agave's prioritization fee cache
// does: an entry for each of the last 150 blocks that had a transaction,
// once the block is confirmed, in slot order, holding the lowest
// compute-unit price paid in the block, raised to the lowest price paid by
// the block's transactions that write-locked each account asked about,
// whichever is highest. The load's transactions count, so the answer shows
// the clearing price of a loaded account.
//
// Leaders take turns of 4 slots; [Options.NonJitoShare] (or
// [Market.SetNonJitoShare]) makes a share of them, drawn from the seed and
// the turn, not run the Jito client: a bundle whose slot has such a leader
// fails. A [TipLoad] makes other bundles bid tips in each Jito slot; a
// bundle lands only if fewer of them than the slot's room bid as much as it
// tips ([Market.ClearingTip]); otherwise it fails, as Jito's engine drops a
// bundle that lost its auction. The block engine serves Jito's tip-floor API
// at GET /api/v1/bundles/tip_floor: percentiles (nearest rank) of the tips
// of the bundles that landed in the last 150 slots, the winning competing
// bids and the chain's own, in SOL, and a moving average (weight 0.1 per
// slot) of each slot's median.
//
// # Programs
//
// A registered [svm.Program] gets an [svm.Exec] per instruction; package
// svm, the runtime, holds the account model, the built-in programs and the
// rules an instruction runs under.
//
// # Servers
//
// [Chain.RPC] serves Solana JSON-RPC in the wire shapes solana-go's rpc
// client decodes; [Chain.Jito] serves the Jito block engine's bundle API at
// /api/v1/bundles. Each has Handler and Serve, so they can run on two ports.
// [Faults] injects latency, HTTP 5xx, 429, hangs, truncated bodies, accepted
// but never landed transactions and bundles, and slot stalls, per service and
// per method, either from seeded probabilities or from explicit scripts.
// Each service decides its faults with an [inject.FaultEngine], which other
// simulated services (the market simulator in package sim) reuse.
//
// # Pubsub
//
// The RPC service also serves Solana's pubsub protocol: a websocket upgrade
// on any path of the RPC port (a validator uses the next port; providers the
// same host). accountSubscribe (encoding base64, base58 or the default
// binary; jsonParsed and base64+zstd are refused with -32602; dataSlice
// applies), signatureSubscribe and slotSubscribe answer with a subscription
// id; accountUnsubscribe, signatureUnsubscribe and slotUnsubscribe answer
// true, or -32602 "Invalid subscription id." for an id the connection does
// not hold. The default commitment is finalized, as on a validator.
// Notifications carry context.slot: an account subscriber gets one
// accountNotification per slot that changed the account's lamports, owner,
// data or executable flag (with its state at the end of that slot), once the
// subscription's commitment has seen that slot complete (processed when the
// slot is over, confirmed at the same moment, finalized 32 blocks later);
// changes made before subscribing are not sent. A signature subscriber gets
// one signatureNotification ({err: null} or the transaction error) when the
// transaction's block reaches the commitment, and the subscription ends. A
// slot subscriber gets {parent, root, slot} for every block as its slot
// starts. While a websocket client is connected, the chain follows its clock
// slot by slot on its own, so notifications go out as slots pass; on a
// [ManualClock] they go out when the clock is advanced past a slot boundary
// (or at the next call of the chain). Each connection has a queue of
// [WSQueueLimit] messages; a client that falls further behind is
// disconnected and its subscriptions end, so no client can hold up the
// chain. A closed connection's subscriptions end with it.
// [PubsubFaults] refuse upgrades or close connections after N
// notifications. [State.ScheduleUpdate] writes an account at an exact slot.
//
// # Differences from a real node
//
//   - getSignatureStatuses without searchTransactionHistory, and
//     getBundleStatuses, see only the last 300 slots; getInflightBundleStatuses
//     forgets bundles after 5 minutes (750 slots).
//   - sendTransaction without preflight accepts any decodable transaction and
//     drops, silently, one that cannot land (bad signature, expired blockhash,
//     duplicate, unpaid fee); maxRetries has no effect.
//   - Account data is served as base64 or base58 only (jsonParsed and
//     base64+zstd are refused with -32602); transactions as json, base64 or
//     base58. Batch requests are refused.
//   - Simulations return no return data and no inner instructions. Their
//     post-states have the fee deducted from the fee payer, as Agave's
//     account loader charges it before execution.
//   - A simulation at confirmed or finalized runs on that bank's accounts,
//     slot and blockhashes, but answers AlreadyProcessed for a transaction
//     that landed in any block, as the newest bank's status cache would.
//   - Rent is checked only under [Options.Rent] (see above), which keeper's
//     simulator sets.
//   - Pubsub serves only accountSubscribe, signatureSubscribe and
//     slotSubscribe (no program, logs, root, block or vote subscriptions, no
//     receivedSignature notifications); a signature that reached its
//     commitment before the subscription is notified at the next block.
//   - Compute units are rough fixed costs per built-in instruction; a
//     registered program costs 1,000 units plus what it consumes.
//   - The fee market packs a block once, at its slot's start, from what
//     was sent before it; a real leader streams transactions into the
//     block during its 400 ms, over several threads. Bundles go first and
//     are charged to the block without competing with the load. The load's
//     transactions are not executed and are not visible but in block space
//     and in getRecentPrioritizationFees; they write-lock one account each.
//     Precompile signatures are not costed and vote transactions not
//     modelled. Agave's master derives the cached compute-unit price from
//     the priority fee; the cache here takes SetComputeUnitPrice's value
//     (the same unless the fee was rounded up).
//   - The Jito auction ranks bundles by tip alone (Jito ranks by tip per
//     unit of compute and runs several auctions per slot), a bundle
//     competes in the auction of the slot after the one it was sent in and
//     fails if it loses, and the chain's own bundles do not compete with
//     one another. The tip floor's window and moving average are the
//     simulator's choices: Jito does not document its own.
package chainsim
