package signer

import (
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func tipAccounts() []string {
	return []string{fixture.TipAccounts[0].String(), fixture.TipAccounts[1].String()}
}

// solanaGoTip builds a tip message the way the chain package would, with
// solana-go's builders.
func solanaGoTip(t *testing.T, from, to solana.PublicKey, lamports uint64) []byte {
	t.Helper()
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(lamports, from, to).Build()},
		fixture.Blockhash, solana.TransactionPayer(from))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignTip(t *testing.T) {
	s := fixtureSigner(t)
	tip := fixture.TipAccounts[1]
	transfer := func(from, to solana.PublicKey, n uint64) fixture.Ix {
		return fixture.Ix{Program: solana.SystemProgramID, Data: fixture.SystemTransfer(n), Accounts: []fixture.Meta{fixture.WS(from), fixture.W(to)}}
	}
	legacy := func(payer solana.PublicKey, ixs ...fixture.Ix) []byte {
		return compile(fixture.Spec{Payer: payer, Ixs: ixs})
	}
	withLookup := compile(fixture.Spec{Payer: fixture.Wallet, V0: true, Ixs: []fixture.Ix{transfer(fixture.Wallet, tip, 5000),
		{Program: fixture.MarketProgram, Accounts: []fixture.Meta{fixture.W(fixture.Loan)}}},
		Tables: []fixture.Table{{Key: fixture.LookupTable, Addresses: []solana.PublicKey{fixture.Loan}}}})
	create := fixture.Ix{Program: solana.SystemProgramID, Data: fixture.SystemCreateAccount(5000, 0, fixture.MarketProgram),
		Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(tip)}}
	tests := []struct {
		name      string
		msg       []byte
		maxTip    uint64
		want      Rule
		malformed bool
	}{
		{"solana-go built tip", solanaGoTip(t, fixture.Wallet, tip, 10_000), 10_000, "", false},
		{"fixture built tip", legacy(fixture.Wallet, transfer(fixture.Wallet, fixture.TipAccounts[0], 1000)), 10_000, "", false},
		{"not a tip account", solanaGoTip(t, fixture.Wallet, fixture.Stranger, 10_000), 10_000, RuleSOLTransfer, false},
		{"above the maximum", solanaGoTip(t, fixture.Wallet, tip, 10_001), 10_000, RuleTipBound, false},
		{"two instructions", legacy(fixture.Wallet, transfer(fixture.Wallet, tip, 1), transfer(fixture.Wallet, tip, 1)), 10_000, RuleTipShape, false},
		{"someone else pays", solanaGoTip(t, fixture.Stranger, tip, 1000), 10_000, RuleTipShape, false},
		{"second signer", legacy(fixture.Wallet, transfer(fixture.CoSigner, tip, 1000)), 10_000, RuleTipShape, false},
		{"lookup table", withLookup, 10_000, RuleTipShape, false},
		{"create account instead of transfer", legacy(fixture.Wallet, create), 10_000, RuleTipShape, false},
		{"no instruction", legacy(fixture.Wallet), 10_000, RuleTipShape, false},
		{"garbage", []byte{1, 0, 0, 9}, 10_000, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signed, err := s.SignTip(tt.msg, tipAccounts(), tt.maxTip)
			switch {
			case tt.malformed:
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err %v, want ErrMalformed", err)
				}
				return
			case tt.want != "":
				wantRule(t, err, tt.want)
				return
			case err != nil:
				t.Fatal(err)
			}
			verifyWire(t, signed.Wire, tt.msg)
			if !ed25519.Verify(fixture.Wallet[:], tt.msg, signed.Signature[:]) || signed.TxID != signed.Signature {
				t.Fatal("tip signature wrong")
			}
			stx, err := solana.TransactionFromBytes(signed.Wire)
			if err != nil || stx.VerifySignatures() != nil {
				t.Fatalf("solana-go rejects the signed tip: %v", err)
			}
		})
	}
	if _, err := newSigner(fixture.Key("x")).SignTip(solanaGoTip(t, fixture.Wallet, tip, 1), tipAccounts(), 1); !errors.Is(err, errNoGuard) {
		t.Fatalf("unguarded SignTip: %v", err)
	}
}
