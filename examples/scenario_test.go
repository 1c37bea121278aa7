package examples_test

import "fmt"

// lendingScenario is the head of the small scenarios these tests and benchmarks write, up to its
// `loans:` line: the wallet with walletSOL and walletUSDC, USDC and SOL (at 1 and 150 USD), a lender
// whose strategy "beta" lends idle USDC against SOL (65 % LTV, 85 % liquidation threshold, 30 days
// at 9.5 %). With pyth, SOL is the native mint and both mints have their Pyth feeds (a price
// trigger watches SOL's).
func lendingScenario(name, walletSOL, walletUSDC, idle string, pyth bool) string {
	mints := `  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: SOL, decimals: 9, price: 150}
`
	if pyth {
		mints = `  - {symbol: USDC, decimals: 6, price: 1, pyth: eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a}
  - {symbol: SOL, decimals: 9, price: 150, address: So11111111111111111111111111111111111111112,
     pyth: ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d}
`
	}
	return fmt.Sprintf(`
name: %s
wallet: {sol: %q, tokens: {USDC: %q}}
mints:
%swallets:
  - {name: lender, fund: {sol: "2"}}
strategies:
  - name: beta
    authority: lender
    principal_mint: USDC
    idle: %q
    terms:
      - {collateral: SOL, ltv: 650000, lqt: 850000, apys: {30d: 95000}}
loans:
`, name, walletSOL, walletUSDC, mints, idle)
}
