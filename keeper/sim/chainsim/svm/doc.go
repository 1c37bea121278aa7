// Package svm is the runtime of package chainsim's simulated chain: what a
// transaction is made of and how its instructions execute against accounts.
//
// It holds the account model ([Account]), the committed account map and
// the copy-on-write overlay a transaction runs on, the decoded transaction
// (legacy or v0, with its signatures verified and its lookup tables
// resolved), the compute budget and fee of a transaction, durable nonces,
// the built-in programs (System, ComputeBudget, Memo, SPL Token and the
// Associated Token Account program) and the token account and mint layouts
// they share, and the errors the runtime reports ([ProgramError],
// [TxError]).
//
// A [Program] registered on a chainsim chain gets an [Exec] per
// instruction: the instruction's accounts with their signer and writable
// flags, account reads and writes, lamport and token moves
// ([Exec.TransferTokens], [Exec.MintTokens], [Exec.BurnTokens],
// [Exec.EnsureTokenAccount] on associated token accounts), the slot and
// block time, compute units and logs. The runtime's rules apply: accounts
// must be passed to the instruction, writes need a writable account owned by
// the program, debits need ownership or a signature. Tokens may leave a
// wallet that signed or an off-curve address (a PDA): registered programs
// are trusted to sign only for their own.
//
// The chain (slots, blocks, landing, statuses, the RPC and Jito servers)
// is package chainsim; this package knows nothing of time but the block
// position an instruction runs at.
package svm
