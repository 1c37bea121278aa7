package signer

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func TestSpendAt(t *testing.T) {
	s := fixtureSigner(t)
	w, ws, rs := fixture.W, fixture.WS, fixture.RS
	ixs := []fixture.Ix{
		{Program: fixture.MarketProgram, Data: fixture.Anchor("repay", 1), Accounts: []fixture.Meta{ws(fixture.Wallet), w(fixture.Loan)}},
		{Program: solana.TokenProgramID, Data: fixture.TokenTransfer(10), Accounts: []fixture.Meta{w(fixture.WalletUSDC), w(fixture.StrangerUSDC), rs(fixture.Wallet)}},
		{Program: solana.SystemProgramID, Data: fixture.SystemTransfer(5), Accounts: []fixture.Meta{ws(fixture.Wallet), w(fixture.Stranger)}},
		{Program: solana.SystemProgramID, Data: fixture.SystemTransfer(5), Accounts: []fixture.Meta{ws(fixture.Wallet), w(fixture.Wallet)}},
		{Program: solana.TokenProgramID, Data: fixture.TokenSyncNative(), Accounts: []fixture.Meta{w(fixture.WalletWSOL), fixture.R(fixture.Wallet)}},
		{Program: solana.TokenProgramID, Data: fixture.TokenTransfer(10), Accounts: []fixture.Meta{w(fixture.StrangerUSDC), w(fixture.WalletUSDC), rs(fixture.Stranger)}},
	}
	tx, err := DecodeMessage(compile(fixture.Spec{Payer: fixture.Wallet, Ixs: ixs}))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, false, false, false, false}
	for i, w := range want {
		if _, got := s.SpendAt(tx, i); got != w {
			t.Errorf("instruction %d: spend %v, want %v", i, got, w)
		}
	}
	if _, got := s.SpendAt(nil, 0); got {
		t.Error("a nil transaction spends")
	}
}
