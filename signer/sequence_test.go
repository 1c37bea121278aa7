package signer

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func TestSignSequence(t *testing.T) {
	s := fixtureSigner(t)
	w, r, ws, rs := fixture.W, fixture.R, fixture.WS, fixture.RS
	pay := func(amount uint64) fixture.Ix {
		return fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenTransferChecked(amount, 6),
			Accounts: []fixture.Meta{w(fixture.WalletUSDC), r(fixture.USDC), w(fixture.MarketVault), rs(fixture.Wallet)}}
	}
	seed := "seq"
	create := fixture.Ix{Program: solana.SystemProgramID, Accounts: []fixture.Meta{ws(fixture.Wallet), w(fixture.NewAccount), rs(fixture.Wallet)},
		Data: append(append(append(append([]byte{3, 0, 0, 0}, fixture.Wallet[:]...), le64(uint64(len(seed)))...), []byte(seed)...),
			append(append(le64(5_000_000_000), le64(165)...), solana.TokenProgramID[:]...)...)}
	closeBack := fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenCloseAccount(),
		Accounts: []fixture.Meta{w(fixture.NewAccount), w(fixture.Wallet), rs(fixture.Wallet)}}
	tx := func(ixs ...fixture.Ix) *Tx {
		t.Helper()
		d, err := DecodeMessage(compile(fixture.Spec{Payer: fixture.Wallet, Ixs: ixs}))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bounds := Bounds{MaxLamports: 50_000, MaxTokens: map[string]uint64{fixture.USDC.String(): 1_000_000}}
	tests := []struct {
		name  string
		txs   []*Tx
		rule  Rule
		index int
	}{
		{"two payments within the amount", []*Tx{tx(pay(400_000)), tx(pay(600_000))}, "", 0},
		{"the second transaction drains", []*Tx{tx(pay(600_000)), tx(pay(600_000))}, RuleTokenBound, 1},
		{"an account created by one and closed back by the next", []*Tx{tx(create), tx(closeBack)}, "", 0},
		{"an account created and never closed", []*Tx{tx(create), tx(pay(1))}, RuleLamportsBound, 1},
		{"a rule of one transaction", []*Tx{tx(pay(1)), tx(fixture.Ix{Program: fixture.UnknownProgram, Accounts: []fixture.Meta{ws(fixture.Wallet)}})}, RuleProgramNotAllowed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rule == RuleTokenBound {
				for _, x := range tt.txs {
					if _, err := s.Sign(x, KindRepay, bounds); err != nil {
						t.Fatalf("each transaction alone passes, but: %v", err)
					}
				}
			}
			signed, err := s.SignSequence(tt.txs, KindRepay, bounds)
			if tt.rule == "" {
				if err != nil || len(signed) != len(tt.txs) {
					t.Fatalf("SignSequence: %d signed, %v", len(signed), err)
				}
				return
			}
			var sr *SequenceRefusal
			if !errors.As(err, &sr) || sr.Index != tt.index || signed != nil {
				t.Fatalf("err %v, want a refusal of transaction %d", err, tt.index)
			}
			wantRule(t, err, tt.rule)
		})
	}
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}
