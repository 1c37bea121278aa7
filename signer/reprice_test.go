package signer_test

import (
	"bytes"
	"encoding/base64"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer"
)

func TestRepriceSetsKeepersBudget(t *testing.T) {
	wallet, loan, table, far := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	work := solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(loan).WRITE(), solana.Meta(far).WRITE()}, []byte("work"))
	want := signer.Budget{Limit: 55_000, Price: 120_000}
	for _, tc := range []struct {
		name   string
		tables map[solana.PublicKey]solana.PublicKeySlice
		ixs    []solana.Instruction
	}{
		{"legacy without a budget", nil, []solana.Instruction{work}},
		{"v0 with a lookup table, without a budget", map[solana.PublicKey]solana.PublicKeySlice{table: {far}}, []solana.Instruction{work}},
		{"with the market's budget", nil, []solana.Instruction{budgetIx(signer.SetUnitLimitData(1_400_000)), budgetIx(signer.SetUnitPriceData(1)), work}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []solana.TransactionOption{solana.TransactionPayer(wallet)}
			if tc.tables != nil {
				opts = append(opts, solana.TransactionAddressTables(tc.tables))
			}
			tx, err := solana.NewTransaction(tc.ixs, solana.Hash{7}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := tx.Message.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			before, err := signer.DecodeAPITransaction(base64.StdEncoding.EncodeToString(msg), nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := signer.Reprice(before, wallet, want)
			if err != nil {
				t.Fatalf("Reprice: %v", err)
			}
			after, err := signer.DecodeAPITransaction(base64.StdEncoding.EncodeToString(raw), nil)
			if err != nil {
				t.Fatalf("the repriced message does not decode: %v", err)
			}
			if err := signer.CheckBudget(after, want, false); err != nil {
				t.Errorf("repriced budget: %v", err)
			}
			progs := slices.DeleteFunc(after.ProgramIDs(), func(p solana.PublicKey) bool { return p == solana.ComputeBudget })
			if !slices.Equal(progs, []solana.PublicKey{solana.MemoProgramID}) {
				t.Errorf("programs after %v, want the memo alone beside ComputeBudget", after.ProgramIDs())
			}
			if !slices.Equal(after.WritableStaticKeys(), before.WritableStaticKeys()) || !slices.Equal(after.LookupTables(), before.LookupTables()) {
				t.Errorf("accounts changed: writable %v → %v", before.WritableStaticKeys(), after.WritableStaticKeys())
			}
		})
	}
}

func TestRepriceLeavesOthersMessagesAlone(t *testing.T) {
	wallet, cosigner := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	tx := budgetTx(t, wallet, solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(cosigner).SIGNER()}, nil))
	orig := tx.MessageBytes()
	if _, err := signer.Reprice(tx, wallet, signer.Budget{Limit: 1, Price: 1}); err == nil {
		t.Fatal("Reprice rewrote a message another signer signs")
	}
	if !bytes.Equal(tx.MessageBytes(), orig) {
		t.Fatal("Reprice changed the co-signed message")
	}
}
