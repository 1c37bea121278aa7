// Package programs is the simulated lending market's on-chain side: the
// market's catalogue ([Catalog]: mints, CLMM pools and positions,
// strategies, vaults, loans, loops and earn vaults, with the market's
// off-chain data such as oracle prices) and the programs package sim
// registers on its chainsim chain: the market program (repay, withdraw
// collateral, close loan, transfer position, claim fees, strategy update and
// withdraw), the earn program (withdrawal claims) and the dex-a and dex-b
// CLMM programs, with the CLMM fee and reward accounting they share. The
// instructions and their accounts are listed in package sim's
// documentation.
package programs
