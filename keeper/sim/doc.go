// Package sim is a simulated lending market (the HTTP API of
// shared/spec/lending-market-interface.md, endpoints E1–E12 plus the assumed earn reads of
// api.DefaultPaths) running against a simulated Solana chain and Jito block engine
// (package chainsim), all on one clock. Tests, the examples, `keeper run --sim` and `keeper sim` act
// against it instead of real money.
//
// [New] loads a [scenario.Scenario] (the embedded default one unless told otherwise), deploys the market's
// programs on a chainsim chain and funds the operator's wallet. [Sim.Handlers] serve the three
// services; [Sim.Start] serves them on
// localhost and returns their URLs (the market's ends in /v1). Scenario events run when their time
// has come on the sim clock: every request runs the due ones first ([Events.RunDue]), and tests step a
// chainsim.ManualClock with [Events.Advance]. An event may give at_slot instead of at (slot n starts
// n × 400 ms after the start); a price_move event (at_slot N, price_move: {mint, by}) has the chain
// rewrite the mint's Pyth account, moved by the fraction, exactly when it reaches slot N, so a
// websocket subscriber of that account (the RPC port serves Solana pubsub, see chainsim) is notified
// at slot N. A congestion event (congestion: {accounts, prices, units, demand}, or {off: true}) turns
// the chain's competing load on or off at its slot, and a jito event (jito: {non_jito_share, tips,
// bundles, room}) sets which leaders run Jito and the competing tips; see chainsim's fee market. An
// amm event (amm: {name, base_reserve, price, quote_skew_bps}) moves a pool of the swap program
// behind the Jupiter API (a moved price, a thin pool, a bad quote; unset members keep their value),
// as POST /_sim/amm of a [Control] does from another process (see jupiter_api.go). The
// [Accounts] reader ([Accounts.Loan], [Accounts.Position],
// [Accounts.WithdrawalRequest], [Accounts.Strategy], [Accounts.TokenBalance], [Accounts.Address]) lets
// tests check what a transaction did; [FaultControl] changes the faults of the running services.
//
// # Fixed ids and keys
//
// The market program is SimMarket1111111111111111111111111111111111, the earn program
// SimEarn111111111111111111111111111111111111, the CLMM programs SimDexA111111111111111111111111111111111111
// (dex-a, layout A accounts) and SimDexB111111111111111111111111111111111111 (dex-b, layout B). The
// market's co-signer is the ed25519 key whose seed is sha256([ids.CoSignerSeedText]); it is a read-only
// signer of every market, earn and dex instruction the simulator builds and has already signed the
// transactions it returns. Hostile modes use a second fixed key, [ids.Stranger].
//
// # Where state lives
//
// Everything a transaction can change lives on chain, so it commits or rolls back with the
// transaction (and bundles stay atomic): loans and strategies are accounts of the market program
// whose data is an 8-byte discriminator (sha256("account:SimLoan") or "account:SimStrategy", first 8
// bytes) followed by JSON; withdrawal requests are 128-byte accounts of the earn program (see
// package state); CLMM pools and positions are accounts of the dex programs in the real layouts of
// package clmm; balances are real token accounts. A strategy's idle principal is its token account's
// balance. The market keeps off chain only what no transaction changes: the catalogue, oracle
// prices, vault yields and rewards, vault depositors, loops and earn positions.
//
// Addresses derive from scenario names: loans PDA(market, ["loan", name]), strategies
// PDA(market, ["strategy", name]), lending vaults PDA(market, ["vault", name]), earn vaults
// PDA(earn, ["vault", name]), requests PDA(earn, ["request", vault+"/"+name]), pools
// PDA(dex, ["pool", name]) (a name longer than 32 bytes is hashed first), position accounts the real
// PDA(dex, ["position", positionMint]); mints, named wallets, position mints and LP mints are
// sha256("keeper/sim <kind> <name>") unless the scenario gives an address.
//
// # The market API
//
// Every route is POST with a JSON body under /v1/. Bodies decode strictly: malformed JSON, an unknown
// field, a value of the wrong type and a negative number (outside tick indexes) are 400s naming the
// field; every endpoint then checks required fields and references (unknown loan, strategy,
// position, request or vault) with a precise 400. Writes need the user-wallet header (400 without
// it); the payer header, when present, makes another wallet the fee payer. A write on a loan by
// another wallet than its borrower, or on a strategy by another wallet than its authority, is a 401.
// An unknown route is a 404 and another method a 405, both calling Options.OnUnknownRoute. Every
// answer, errors included, carries x-request-id; errors use the spec's envelope
// {"error":{"code":N,"message":"..."}}, and failures the simulator does not explain say "Request
// could not be processed.".
//
// Idempotent-Key: a write's successful answer is remembered under its key with a fingerprint of the
// endpoint, the user-wallet and payer headers and the body bytes. The same key with the same
// fingerprint replays the answer byte for byte (with the blockhash it was built with); the same key
// with another fingerprint is a 409. Failed answers are not remembered.
//
// Values the spec leaves open, as the simulator defines them:
//
//   - filterType 0 active (not closed), 1 closed, 2 all; absent means all.
//   - sortType 0 start time (the default), 1 collateralUsd, 2 principalUsd, 3 interestAccruedUsd,
//     4 pnlUsd; ties by loan id. sortSide / sortDirection 0 ascending, 1 descending.
//   - assetType 0 token, 1 dex-a position, 2 dex-b position. loanStatus 0 active, 1 repaid (closed);
//     ledger status 0 active, 1 repaid. orderFundingTypes matches a loan's funding type.
//   - E5 sort 0 amountSupplied, 1 userAddress (absent: scenario order); E5 pages count depositor rows.
//   - Pages start at 0; pageSize absent or 0 means 20, at most 500.
//   - lenders matches a ledger's strategy address or that strategy's authority.
//     loopVaultPrincipalCollateralPairs matches a loop ledger (isLoop 1) of that principal mint on a
//     loan holding that collateral identifier.
//   - CLMM collateral: assetIdentifier is the pool, assetMint the position mint, amount the position's
//     liquidity; it is valued from the tokens the position holds at the pool's current price plus its
//     fees owed, each token at its oracle price.
//   - Interest accrues linearly: interestPerSecond = outstanding principal × apy / 1e6 /
//     SECONDS_PER_YEAR until endTime, rounded down to base units when reported.
//   - collateralUsdRisk weights each collateral by its highest liquidation threshold; principalUsdRisk
//     is principalUsd + interestAccruedUsd; collateralYieldPct is a percentage (yield APY × 100);
//     pendingYieldUsd is a collateral's yield since it was last touched. pnlUsd follows aggregate rule
//     4, the borrower's net inflows being the USD value of collateral added minus removed and of
//     principal repaid minus borrowed, each at its time's prices. All USD figures of one answer use one
//     price snapshot, whose time is snapshotTs.
//   - lastInteractedTxn is "slot-<slot>-ix-<instruction index>": chainsim does not show a program its
//     transaction's signature.
//
// E6: for each collateral, every strategy lending the principal mint with originations enabled and
// an APY for the collateral and duration is a candidate, except those whose external yield source
// is excluded and the caller's own (by the user-wallet header). A candidate offers
// min(idle − liquidityBuffer, maxAllocationPct% × TVL − current allocation, borrow capacity), the
// capacity (only when the request gives an amount) being the collateral's USD value at its oracle
// price or priceOverride × ltv. The best has the lowest APY, then the larger amount, then the lower
// strategy address; a collateral without candidates is left out.
//
// E7 follows the spec's rules 1–4: AddCollateral adds and RemoveCollateral subtracts when the
// event's asset identifier is the mint, Liquidate subtracts only its transfers of the mint to the
// liquidator; events before rangeStart form the opening balance, events at or after rangeEnd count
// nothing. Amounts are divided by 10^decimals of the mint (pool ids count in raw units). pdas false
// keys by borrower wallet (a borrower's loans add up), true by loan address. A mint no event ever
// touched gives an empty array; otherwise one record lists every holder with an event up to rangeEnd.
//
// # Transactions
//
// Writes return v0 messages without lookup tables, base64, with the fee payer first, the recent
// blockhash the chain's confirmed block's (so preflight at confirmed accepts it), and
// signatures[] = {publicKey base58, signature base64} holding the co-signer's. E10's txBase64s are
// full wire transactions, the user's signature slot zeroed, to be sent in order as one bundle: a
// token-account creation first when the wallet has none for the vault's mint, then the claim. E1
// packs its items into as few transactions as fit 1232 bytes and returns them in order. Token
// accounts a write pays into are created with the Associated Token Account program's
// CreateIdempotent.
//
// Instruction data is one tag byte and little-endian fields. Market program (accounts: user signer
// and writable, co-signer read-only signer, then):
//
//	1 repay               ledger u8, amount u64, repayAll u8   loan, strategy, user and strategy token accounts, mint, Token
//	2 withdraw collateral slot u8, amount u64                   loan, loan and user token accounts, mint, Token
//	3 close loan          —                                     loan
//	4 transfer position   slot u8, lower i32, upper i32, liquidity u64, slippage bps u16   loan, position, pool
//	5 claim fees          slot u8                               loan, position, pool
//	6 strategy update     count u8, items                       strategy
//	7 strategy withdraw   amount u64, withdrawAll u8            strategy, strategy and user token accounts, mint, Token
//
// Strategy-update items are a kind byte, the collateral (32 bytes) and: 1 add collateral; 2 set APY
// (durationType u8, duration u32, apy i64 cBPS); 3 remove duration (durationType u8, duration u32);
// 4 remove collateral; 5 set allocation (u8 length, percent as text); 6 set LTV (i64 cBPS); 7 set
// liquidation threshold (i64 cBPS); 8 set asset data (u8 length key, u8 length value). Kind 9 sets a
// parameter without a collateral: param u8 (1 interestFee, 2 liquidityBuffer, 3 originationCap,
// 4 originationFee, 5 principalFee, 6 originationsEnabled, 7 externalYieldSource), value i64.
// Earn program: 1 withdraw claim (wallet, co-signer, request, vault, vault and wallet token accounts,
// mint, Token). Dex programs, which accept instructions only with the co-signer's signature (the
// market holds the position NFTs): 1 set range (lower i32, upper i32; accounts position, pool,
// co-signer, the tick arrays of the old range's lower and upper ticks and of the new range's), 2
// collect fees (accounts position, pool, co-signer, owner, pool token accounts of mint 0 and 1, owner
// token accounts of mint 0 and 1, Token), paying what the position stores, and 3 update fees
// (accounts position, pool, co-signer, the tick arrays of the lower and upper ticks), bringing the
// stored fees up to date as dex-b's update_fees_and_rewards does.
//
// CLMM fees accrue as on chain: swaps (pool events with fees_0/fees_1, and fees events) raise the
// pool's global fee growth at its active liquidity, price moves cross initialized ticks and flip their
// fee growth outside, and tick arrays live at their PDAs in the real layouts (dex-b fixed, or
// dynamic with tick_arrays: dynamic). A position's stored fees change only when it is touched. A
// dex-b pool may emit rewards, accrued by its reward growth whenever the pool is touched.
//
// When a transaction lands, the programs execute the operation: repay moves principal tokens from the
// user to the strategy (principal first, then interest; repayAll pays all accrued) and reduces the
// ledger; transfer position moves the position's range (same liquidity; its fees are brought up to
// date first); claim fees updates the position's fees, pays them from the pool's token accounts and
// zeroes them; withdraw claim pays a fully filled request
// once and closes its account, so a second claim fails with "request account not found"; strategy
// update changes the terms; strategy withdraw pays idle principal to the authority. A landed
// transaction changes what the API reads next.
//
// # Faults
//
// [faults.Faults] configures all three services: Chain is chainsim's (latency, 5xx, 429, hangs, truncated
// bodies, transactions and bundles accepted but never landed, slot stalls); Market injects latency,
// 5xx, 429 with Retry-After, hangs until the client gives up, and truncated bodies per endpoint,
// from seeded probabilities (one random stream per endpoint, drawn by a chainsim.FaultEngine) or
// explicit scripts, plus hostile modes ([faults.Hostile]) in which writes return co-signed transactions that
// try to take the wallet's funds or authority, and snapshot skews ([faults.SnapshotSkew]) in which E3 pages
// after the first carry another snapshotTs, once or always, so a walk of pages is mixed.
//
// # Scenarios
//
// A scenario file is strict YAML ([ParseScenario]: unknown keys, bad values and bad references are
// all reported as file:line:col); see [scenario.Scenario] for the format and "$wallet" for the operator's
// wallet. The default scenario (default_scenario.yaml, embedded) gives every policy kind something
// to act on within about a minute: the SOL oracle price falls from 150 to 110 at 10 s, taking loan
// "repay-me" (10 SOL against 800 USDC, liquidation threshold 85 %) from health ~0.37 to ~0.14;
// dex-a pool "sol-usdc-a" falls to 135 at 20 s, leaving position "pos-a" [145, 155) out of range;
// dex-b position "pos-b" is owed USDC fees 2 → 7 (10 s) → 17 (25 s) through its pool's fee growth
// while its account keeps storing 2; earn request "r-full" becomes
// fully filled at 20 s while "r-partial" stays partial; the wallet's strategy "alpha" quotes SOL 7d at
// 12 % while the best other quote ("beta") falls from 10 % to 9 % at 5 s, and it holds 60,000 USDC
// idle; vault "alpha-vault"'s external yield falls from 8 % to 1 % and its JTO rewards end at 30 s,
// taking its total APY from about 8 % to under 1 %.
package sim
