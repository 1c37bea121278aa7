package signer

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// aggregator stands for the DEX aggregator's program.
var aggregator = solana.MustPublicKeyFromBase58("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4")

func TestSwapBoundsFromOracle(t *testing.T) {
	// 150 USDC of debt at SOL = 150 $, 2 % slippage: at most 1.02 SOL may leave the loan.
	maxCol, minOut, err := SwapBoundsFromOracle(150_000_000, 1, 150, 6, 9, 0.02)
	if err != nil || maxCol != 1_020_000_000 || minOut != 150_000_000 {
		t.Fatalf("bounds = %d, %d, %v", maxCol, minOut, err)
	}
	for _, p := range [][2]float64{{0, 150}, {1, 0}, {1, -3}} {
		if _, _, err := SwapBoundsFromOracle(1, p[0], p[1], 6, 9, 0.02); err == nil {
			t.Errorf("prices %v: no error; an unknown price must never give a bound", p)
		}
	}
	if _, _, err := SwapBoundsFromOracle(1, 1, 150, 6, 9, 0); err == nil {
		t.Error("zero max_slippage accepted")
	}
}

func TestCheckSwapQuote(t *testing.T) {
	b := SwapBounds{CollateralMint: solana.WrappedSol, PrincipalMint: fixture.USDC, MaxCollateral: 1_020_000_000, MinOut: 150_000_000,
		Programs: []solana.PublicKey{aggregator}}
	good := SwapQuote{InputMint: solana.WrappedSol, OutputMint: fixture.USDC, InAmount: 1_020_000_000, MinOut: 150_100_000,
		Programs: []solana.PublicKey{solana.SPLAssociatedTokenAccountProgramID, aggregator}}
	tests := []struct {
		name string
		edit func(*SwapQuote)
		want Rule
	}{
		{"fair route", func(*SwapQuote) {}, ""},
		{"route at a bad price", func(q *SwapQuote) { q.MinOut = 149_999_999 }, RuleSwapPrice},
		{"more collateral than planned", func(q *SwapQuote) { q.InAmount = 1_020_000_001 }, RuleSwapWithdrawal},
		{"unknown program hidden in the swap", func(q *SwapQuote) { q.Programs = append(q.Programs, fixture.Loan) }, RuleSwapProgram},
		{"another output mint", func(q *SwapQuote) { q.OutputMint = fixture.Loan }, RuleSwapShape},
		{"ExactOut within the bound", func(q *SwapQuote) { q.ExactOut, q.MinOut = true, 150_000_000 }, ""},
		{"ExactOut needing more than the bound: a bad price", func(q *SwapQuote) { q.ExactOut, q.MinOut, q.InAmount = true, 150_000_000, 1_020_000_001 }, RuleSwapPrice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := good
			q.Programs = append([]solana.PublicKey{}, good.Programs...)
			tt.edit(&q)
			err := CheckSwapQuote(b, q)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRule(t, err, tt.want)
		})
	}
}

func TestCheckSwapOutflows(t *testing.T) {
	usdc := fixture.USDC.String()
	sb := SwapBounds{CollateralMint: solana.WrappedSol, PrincipalMint: fixture.USDC}
	b := Bounds{MaxLamports: 50_000 + 2*2_039_280}
	tests := []struct {
		name    string
		o       Outflows
		unspent uint64
		want    Rule
	}{
		{"all withdrawn collateral sold, surplus kept", Outflows{Lamports: 30_000, Tokens: map[string]int64{usdc: -9_000_000}}, 0, ""},
		{"output sent to a stranger: the wallet pays the flash loan", Outflows{Lamports: 30_000, Tokens: map[string]int64{usdc: 140_000_000}}, 0, RuleSimulatedTokens},
		{"more collateral withdrawn than sold", Outflows{Lamports: 30_000, Tokens: map[string]int64{solana.WrappedSol.String(): -500_000_000}}, 0, RuleSwapWithdrawal},
		{"a rent refund is not a withdrawal", Outflows{Lamports: -2_039_280}, 0, ""},
		{"an ExactOut swap leaves what it did not spend", Outflows{Lamports: 30_000, Tokens: map[string]int64{solana.WrappedSol.String(): -10_000_000}}, 10_000_000, ""},
		{"beyond what it may leave", Outflows{Lamports: 30_000, Tokens: map[string]int64{solana.WrappedSol.String(): -20_000_000}}, 10_000_000, RuleSwapWithdrawal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := sb
			sb.Unspent = tt.unspent
			err := CheckSwapOutflows(b, sb, tt.o)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRule(t, err, tt.want)
		})
	}
}

// TestAggregatorAllowedForCollateralRepayOnly: the aggregator's program, configured for
// repay-collateral, is refused in a plain repay and in any other kind.
func TestAggregatorAllowedForCollateralRepayOnly(t *testing.T) {
	msg := compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{{Program: aggregator, Data: []byte{1},
		Accounts: []fixture.Meta{fixture.WS(fixture.Wallet)}}}})
	tx, err := DecodeAPITransaction(b64(msg), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := guarded(t, func(c *GuardConfig) { c.ExtraPrograms = map[Kind][]string{KindRepayCollateral: {aggregator.String()}} })
	if _, err := s.Sign(tx, KindRepayCollateral, Bounds{MaxLamports: 10_000}); err != nil {
		t.Fatalf("repay-collateral: %v", err)
	}
	for _, k := range []Kind{KindRepay, KindRebalance, KindClaimFees} {
		_, err := s.Sign(tx, k, Bounds{MaxLamports: 10_000})
		wantRule(t, err, RuleProgramNotAllowed)
	}
}
