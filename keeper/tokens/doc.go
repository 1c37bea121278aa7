// Package tokens learns what a mint is called and how it counts from the chain itself: decimals
// from the mint account (SPL Token or Token-2022), and the symbol from the token's on-chain
// metadata, either Token-2022's metadata extension in the mint or the Metaplex Token Metadata
// account derived from the mint. A Book caches what it learned for the life of the process, so each
// mint costs one read; what an operator writes under `tokens:` in the config overrides it.
//
// The layouts are the programs' own (see ../shared/research/chain-facts.md, section 2): the mint's
// decimals at byte 44; Token-2022 extensions as type-length-value entries from byte 166, the
// TokenMetadata entry being type 19 (borsh: update authority, mint, then name, symbol and uri as
// u32-length strings); the Metaplex account (key 4) at PDA ["metadata", program, mint] with name,
// symbol and uri as u32-length strings, usually padded with NUL bytes.
package tokens
