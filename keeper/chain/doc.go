// Package chain lands keeper's transactions on Solana and tells what became
// of them.
//
// A [Client] talks JSON-RPC to one or more Solana RPC nodes (failing over in
// the configured order on 429, 5xx, timeouts and connection errors, and
// trying them all again after a backoff) and, optionally, to a Jito block
// engine. An endpoint that answers with Retry-After is sent nothing more
// until then (at most a minute); a call that cannot wait that long before
// its context's deadline fails at once. It:
//
//   - simulates a transaction before keeper signs it and computes the
//     wallet's net SOL and token outflows from the account state before and
//     after ([Client.Simulate], [Client.SimulateSequence]);
//   - sends transactions one by one through RPC, rebroadcasting the same bytes
//     until each is confirmed or its blockhash provably expired
//     ([Client.SendAndConfirm]);
//   - sends up to four transactions as one atomic Jito bundle with keeper's own
//     tip transaction appended last, raising the tip after each drop up to a
//     cap ([Client.SendBundle]);
//   - answers, for earlier attempts of one action, whether one landed, may
//     still land, or provably never will ([Client.Settle]).
//
// Plain reads (accounts, balances, the slot, blockhashes, the fee market)
// are the methods of [Reads], which the Client embeds.
//
// Our own RPC's getSignatureStatuses is the source of truth for landing;
// Jito's bundle statuses are only hints. A transaction counts as expired only
// when its blockhash is invalid at the configured commitment and at
// processed, a final getSignatureStatuses with searchTransactionHistory finds
// nothing, and the blockhash is still invalid afterwards. Only then may the
// caller build a new attempt of the same action.
//
// URLs may carry API keys (in the query, the userinfo or the path): errors and
// logs name endpoints by [redact.URL] only, and JSON-RPC errors are formatted
// here rather than by solana-go (whose RPCError.Error is a multi-line dump).
//
// The package imports solana-go and the standard library only; it knows
// nothing of the market API, policies or key material. Signing happens
// elsewhere: a bundle's tip transaction is signed by the caller's [TipFunc].
package chain
