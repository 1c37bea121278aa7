package signer

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// TestInstructionRules covers each instruction rule's branches, garbled data
// included, one instruction at a time.
func TestInstructionRules(t *testing.T) {
	s := fixtureSigner(t)
	w, ws := fixture.W, fixture.WS
	sys := func(data []byte, accs ...fixture.Meta) fixture.Ix {
		return fixture.Ix{Program: solana.SystemProgramID, Data: data, Accounts: accs}
	}
	tok := func(data []byte, accs ...fixture.Meta) fixture.Ix {
		return fixture.Ix{Program: solana.TokenProgramID, Data: data, Accounts: accs}
	}
	ata := func(data []byte) fixture.Ix {
		return fixture.Ix{Program: solana.SPLAssociatedTokenAccountProgramID, Data: data,
			Accounts: []fixture.Meta{ws(fixture.Wallet), w(fixture.WalletUSDC), fixture.R(fixture.USDC)}}
	}
	mintTable := []fixture.Table{{Key: fixture.LookupTable, Addresses: []solana.PublicKey{fixture.USDC}}}
	usdcBound := Bounds{MaxLamports: 100_000, MaxTokens: map[string]uint64{fixture.USDC.String(): 1_000}}
	tests := []struct {
		name   string
		ix     fixture.Ix
		v0     bool
		kind   Kind
		bounds Bounds
		want   Rule
	}{
		{"system data too short", sys([]byte{2, 0}, ws(fixture.Wallet)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"system unknown tag", sys([]byte{99, 0, 0, 0}, ws(fixture.Wallet)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"transfer data too short", sys([]byte{2, 0, 0, 0, 1}, ws(fixture.Wallet), w(fixture.Stranger)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"transfer to ourselves", sys(fixture.SystemTransfer(1e9), ws(fixture.Wallet), w(fixture.Wallet)), false, KindRepay, usdcBound, ""},
		{"wrap SOL within the bound", sys(fixture.SystemTransfer(1_000), ws(fixture.Wallet), w(fixture.WalletWSOL)), false, KindRepay,
			Bounds{MaxLamports: 100_000, MaxTokens: map[string]uint64{solana.WrappedSol.String(): 1_000}}, ""},
		{"wrap SOL alone is not an outflow", sys(fixture.SystemTransfer(5_000_000), ws(fixture.Wallet), w(fixture.WalletWSOL)), false, KindRepay,
			Bounds{MaxLamports: 100_000, MaxTokens: map[string]uint64{solana.WrappedSol.String(): 1_000}}, ""},
		{"create account garbled", sys([]byte{0, 0, 0, 0, 1}, ws(fixture.Wallet), w(fixture.NewAccount)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"create account of our wallet", sys(fixture.SystemCreateAccount(1, 0, fixture.MarketProgram), ws(fixture.CoSigner), ws(fixture.Wallet)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"create with seed garbled", sys([]byte{3, 0, 0, 0, 9}, ws(fixture.Wallet), w(fixture.NewAccount)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"create with seed, seed length beyond data", sys(append(append([]byte{3, 0, 0, 0}, fixture.Wallet[:]...), 0xff, 0xff, 0, 0, 0, 0, 0, 0), ws(fixture.Wallet), w(fixture.NewAccount)), false, KindRepay, usdcBound, RuleSystemInstruction},
		{"token without data", tok(nil, w(fixture.WalletUSDC), fixture.RS(fixture.Wallet)), false, KindRepay, usdcBound, RuleTokenInstruction},
		{"token sync native naming us", tok(fixture.TokenSyncNative(), w(fixture.WalletWSOL), fixture.R(fixture.Wallet)), false, KindClaimFees, usdcBound, ""},
		{"token initialize account owned by us", tok([]byte{1}, w(fixture.WalletUSDC), fixture.R(fixture.USDC), fixture.R(fixture.Wallet)), false, KindClaimFees, usdcBound, ""},
		{"token freeze with our authority", tok([]byte{10}, w(fixture.WalletUSDC), fixture.R(fixture.USDC), fixture.RS(fixture.Wallet)), false, KindRepay, usdcBound, RuleTokenInstruction},
		{"token transfer data too short", tok([]byte{3, 1, 2}, w(fixture.WalletUSDC), w(fixture.MarketVault), fixture.RS(fixture.Wallet)), false, KindRepay, usdcBound, RuleTokenInstruction},
		{"transfer checked missing accounts", tok(fixture.TokenTransferChecked(1, 6), fixture.RS(fixture.Wallet)), false, KindRepay, usdcBound, RuleTokenInstruction},
		{"transfer checked, mint from a lookup table", tok(fixture.TokenTransferChecked(1_000, 6), w(fixture.WalletUSDC), fixture.R(fixture.USDC), w(fixture.MarketVault), fixture.RS(fixture.Wallet)), true, KindRepay, usdcBound, ""},
		{"transfer checked, mint from a lookup table, over", tok(fixture.TokenTransferChecked(1_001, 6), w(fixture.WalletUSDC), fixture.R(fixture.USDC), w(fixture.MarketVault), fixture.RS(fixture.Wallet)), true, KindRepay, usdcBound, RuleTokenBound},
		{"close account missing accounts", tok(fixture.TokenCloseAccount(), w(fixture.WalletUSDC), fixture.RS(fixture.Wallet)), false, KindRepay, usdcBound, RuleTokenInstruction},
		{"close account to us", tok(fixture.TokenCloseAccount(), w(fixture.WalletUSDC), w(fixture.Wallet), fixture.RS(fixture.Wallet)), false, KindClaimFees, usdcBound, ""},
		{"ata create (empty data)", ata(nil), false, KindClaimFees, usdcBound, ""},
		{"ata create", ata([]byte{0}), false, KindClaimFees, usdcBound, ""},
		{"ata recover nested", ata([]byte{2}), false, KindClaimFees, usdcBound, RuleTokenInstruction},
		{"compute budget unknown tag", fixture.Ix{Program: solana.ComputeBudget, Data: []byte{9}}, false, KindRepay, usdcBound, RuleComputeBudget},
		{"compute budget without data", fixture.Ix{Program: solana.ComputeBudget}, false, KindRepay, usdcBound, RuleComputeBudget},
		{"compute budget with accounts", fixture.Ix{Program: solana.ComputeBudget, Data: fixture.CULimit(1), Accounts: []fixture.Meta{w(fixture.Loan)}}, false, KindRepay, usdcBound, RuleComputeBudget},
		{"deprecated request units", fixture.Ix{Program: solana.ComputeBudget, Data: []byte{0, 1, 0, 0, 0, 1, 0, 0, 0}}, false, KindRepay, usdcBound, RuleComputeBudget},
		{"heap frame and data size limit", fixture.Ix{Program: solana.ComputeBudget, Data: []byte{1, 0, 0, 1, 0}}, false, KindRepay, usdcBound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{tt.ix}, V0: tt.v0, Tables: mintTable}
			msg := compile(spec)
			var sigs []APISignature
			if m, err := parseMessage(msg); err == nil && m.signerIndex(fixture.CoSigner) > 0 {
				sigs = append(sigs, cosign(fixture.CoSignerKey, msg))
			}
			tx, err := DecodeAPITransaction(b64(msg), sigs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Sign(tx, tt.kind, tt.bounds)
			if tt.want != "" {
				wantRule(t, err, tt.want)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}
