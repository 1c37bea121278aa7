package signer_test

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer"
)

// budgetTx compiles a transaction of the wallet paying for ixs and decodes
// it as the market's answer.
func budgetTx(t *testing.T, payer solana.PublicKey, ixs ...solana.Instruction) *signer.Tx {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(payer))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := signer.DecodeAPITransaction(base64.StdEncoding.EncodeToString(msg), nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func budgetIx(data []byte) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
}

func TestCheckBudget(t *testing.T) {
	payer, loan := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	work := solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(loan).WRITE()}, []byte("repay"))
	limit, price := budgetIx(signer.SetUnitLimitData(60_000)), budgetIx(signer.SetUnitPriceData(7_500))
	want := signer.Budget{Limit: 60_000, Price: 7_500}
	for _, tc := range []struct {
		name  string
		ixs   []solana.Instruction
		first bool
		ok    bool
	}{
		{"exactly keeper's, first", []solana.Instruction{limit, price, work}, true, true},
		{"keeper's at the end, anywhere", []solana.Instruction{work, limit, price}, false, true},
		{"keeper's at the end, first required", []solana.Instruction{work, limit, price}, true, false},
		{"missing", []solana.Instruction{work}, false, false},
		{"price changed", []solana.Instruction{limit, budgetIx(signer.SetUnitPriceData(7_501)), work}, false, false},
		{"limit changed", []solana.Instruction{budgetIx(signer.SetUnitLimitData(1_400_000)), price, work}, false, false},
		{"extra heap frame", []solana.Instruction{limit, price, budgetIx([]byte{1, 0, 0, 1, 0}), work}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := signer.CheckBudget(budgetTx(t, payer, tc.ixs...), want, tc.first)
			var r *signer.Refusal
			switch {
			case tc.ok && err != nil:
				t.Fatalf("CheckBudget refused keeper's own budget: %v", err)
			case !tc.ok && (!errors.As(err, &r) || r.Rule != signer.RuleComputeBudget):
				t.Fatalf("CheckBudget = %v, want a %s refusal", err, signer.RuleComputeBudget)
			}
		})
	}
}

func TestWritableStaticKeysAndOnlySigner(t *testing.T) {
	payer, loan, mint := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	cosigner := solana.NewWallet().PublicKey()
	work := solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(loan).WRITE(), solana.Meta(mint)}, nil)
	tx := budgetTx(t, payer, work)
	got := tx.WritableStaticKeys()
	if len(got) != 2 || got[0] != payer || got[1] != loan {
		t.Fatalf("WritableStaticKeys = %v, want the payer and the loan", got)
	}
	if !tx.OnlySigner(payer) {
		t.Fatal("OnlySigner(payer) = false for a transaction only the payer signs")
	}
	cosigned := budgetTx(t, payer, solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(cosigner).SIGNER()}, nil))
	if cosigned.OnlySigner(payer) {
		t.Fatal("OnlySigner(payer) = true for a co-signed transaction")
	}
}
