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
// slot: its instructions run against a copy-on-write overlay and are
// committed only if all succeed; the fee is charged either way and a failure
// is recorded as an instruction error. A landed transaction is processed at
// once, confirmed one block later and finalized 32 blocks later.
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
// charged. Without it (the default, a simplification) rent is not checked.
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
//   - Rent is checked only under [Options.Rent] (see above).
//   - Pubsub serves only accountSubscribe, signatureSubscribe and
//     slotSubscribe (no program, logs, root, block or vote subscriptions, no
//     receivedSignature notifications); a signature that reached its
//     commitment before the subscription is notified at the next block.
//   - Compute units are rough fixed costs per built-in instruction; a
//     registered program costs 1,000 units plus what it consumes.
package chainsim
