package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/policies"
)

// TestWalletTableNamesPoolsAndAmounts: a CLMM collateral's identifier is
// shown as the pool it is, a position's fees owed in its pool's tokens,
// every amount by one rule (10 SOL beside 0.25 SOL, never 10.00 SOL), and
// a withdrawal request's amounts, whose mint no answer names, as base
// units said to be.
func TestWalletTableNamesPoolsAndAmounts(t *testing.T) {
	r := &keeper.WalletReport{Wallet: "W", Lamports: 10_000_000_000,
		Holdings: policies.Holdings{
			Loans:       []policies.LoanFacts{{Address: "L", Collateral: []policies.CollateralFacts{{Mint: "PosMint", Identifier: "PoolA", IsCLMM: true}}}},
			Positions:   []policies.PositionFacts{{PositionMint: "PosMint", Pool: "PoolA", OwedKnown: true, FeesOwed0: 17_000_000, FeesOwed1: 250_000_000}},
			Withdrawals: []policies.WithdrawalFacts{{RequestID: "Req", Vault: "EarnV", State: "partially_filled", Requested: 300_000_000, Filled: 120_000_000}},
		},
		Tokens:    map[string]policies.Token{"USDCmint": {Symbol: "USDC", Decimals: 6}, "SOLmint": {Symbol: "SOL", Decimals: 9}},
		PoolMints: map[string][2]string{"PosMint": {"USDCmint", "SOLmint"}},
	}
	var b bytes.Buffer
	writeWallet(&b, r, time.Unix(0, 0))
	for _, want := range []string{"Wallet W: 10 SOL\n", "CLMM pool PoolA", "17 USDC + 0.25 SOL", "120000000 / 300000000 base units",
		"in base units of the vault's token"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("wallet table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "CLMM position PoolA") {
		t.Errorf("wallet table calls a pool a position:\n%s", b.String())
	}
}
