package signer

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func TestCheckOutflows(t *testing.T) {
	usdc, sol := fixture.USDC.String(), solana.WrappedSol.String()
	repay := Bounds{MaxLamports: 50_000, MaxTokens: map[string]uint64{usdc: 1_000_000}}
	solRepay := Bounds{MaxLamports: 50_000 + 2_039_280, MaxTokens: map[string]uint64{sol: 2_000_000_000}}
	tests := []struct {
		name    string
		kind    Kind
		b       Bounds
		o       Outflows
		want    Rule
		wantErr string
	}{
		{"within bounds", KindRepay, repay, Outflows{Lamports: 25_000, Tokens: map[string]int64{usdc: 1_000_000}}, "", ""},
		{"lamports at the bound", KindRepay, repay, Outflows{Lamports: 50_000}, "", ""},
		{"lamports over", KindRepay, repay, Outflows{Lamports: 50_001}, RuleSimulatedLamports, ""},
		{"lamport inflow", KindClaimWithdrawals, Bounds{}, Outflows{Lamports: -2_039_280}, "", ""},
		{"token over", KindRepay, repay, Outflows{Tokens: map[string]int64{usdc: 1_000_001}}, RuleSimulatedTokens, ""},
		{"mint without a bound", KindRepay, repay, Outflows{Tokens: map[string]int64{fixture.Loan.String(): 1}}, RuleSimulatedTokens, ""},
		{"native SOL repay within X + fees + rent", KindRepay, solRepay, Outflows{Lamports: 2_000_000_000 + 50_000 + 2_039_280}, "", ""},
		{"native SOL repay one lamport over", KindRepay, solRepay, Outflows{Lamports: 2_000_000_000 + 50_000 + 2_039_280 + 1}, RuleSimulatedLamports, ""},
		{"wrapped SOL tokens count with lamports", KindRepay, solRepay, Outflows{Lamports: 50_000 + 2_039_280, Tokens: map[string]int64{sol: 2_000_000_001}}, RuleSimulatedLamports, ""},
		{"wrapped SOL inflow offsets lamports", KindRepay, repay, Outflows{Lamports: 1_050_000, Tokens: map[string]int64{sol: -1_000_000}}, "", ""},
		{"no wrapped SOL bound: lamports alone", KindRepay, repay, Outflows{Tokens: map[string]int64{sol: 50_001}}, RuleSimulatedLamports, ""},
		{"token inflows pass", KindClaimFees, Bounds{}, Outflows{Tokens: map[string]int64{usdc: -5, sol: 0}}, "", ""},
		{"unknown kind", "liquidate", repay, Outflows{}, RuleUnknownKind, ""},
		{"bad mint in outflows", KindRepay, repay, Outflows{Tokens: map[string]int64{"nope": 1}}, "", "outflows: mint"},
		{"bad mint in bounds", KindRepay, Bounds{MaxTokens: map[string]uint64{"nope": 1}}, Outflows{}, "", "bounds: mint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckOutflows(tt.kind, tt.b, tt.o)
			switch {
			case tt.want != "":
				wantRule(t, err, tt.want)
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			}
		})
	}
}
