// Package jupiter is a client of Jupiter's swap API (https://dev.jup.ag/docs/swap-api), the DEX
// aggregator keeper asks for the swap of a loan's collateral into its principal when a repay is paid
// from collateral.
//
// Two calls make a swap: GET {base}/swap/v1/quote prices a route (inAmount, outAmount, the
// otherAmountThreshold that slippage allows, the price impact and the route plan), then
// POST {base}/swap/v1/swap-instructions turns that quote into instructions for a wallet (compute
// budget, setup, the swap itself, cleanup) and the address lookup tables they need. keeper never
// sends those instructions itself: it hands them to the market's E2 build, and the guard checks the
// transaction the market returns.
//
// The API key (header x-api-key) and any secret in the base URL never reach a log or an error.
package jupiter
