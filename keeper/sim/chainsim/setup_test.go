package chainsim

import (
	"errors"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

func TestSetupHelpers(t *testing.T) {
	c, _ := newChain(t, Options{})
	alice, mint, other := newKey("alice").PublicKey(), newKey("mint").PublicKey(), newKey("other").PublicKey()
	mustFund(t, c, alice, 10)
	mustFund(t, c, alice, 5)
	if c.State.Balance(alice) != 15 {
		t.Fatalf("balance = %d, want 15", c.State.Balance(alice))
	}
	if err := c.Setup.Fund(alice, math.MaxUint64); err == nil {
		t.Fatalf("an overflowing Fund succeeded")
	}
	if err := c.Setup.CreateMint(mint, 9); err != nil {
		t.Fatalf("CreateMint: %v", err)
	}
	if err := c.Setup.CreateMint(mint, 9); err == nil {
		t.Fatalf("CreateMint over an existing account succeeded")
	}
	if err := c.Setup.MintTo(alice, other, 1); err == nil {
		t.Fatalf("MintTo of a non-mint succeeded")
	}
	for range 2 {
		if err := c.Setup.MintTo(alice, mint, 250); err != nil {
			t.Fatalf("MintTo: %v", err)
		}
	}
	ata, _ := svm.AssociatedTokenAddress(alice, mint)
	a, ok := c.State.Account(ata)
	ta, _ := svm.DecodeTokenAccount(a.Data)
	if !ok || c.State.TokenBalance(alice, mint) != 500 || ta.Owner != alice || ta.Mint != mint || a.Owner != solana.TokenProgramID || len(a.Data) != svm.TokenAccountSize {
		t.Fatalf("token account = %+v", a)
	}
	c.State.SetAccount(other, svm.Account{Lamports: 3, Owner: vaultProgramID, Data: []byte{1, 2}})
	if got, ok := c.State.Account(other); !ok || got.Lamports != 3 || got.Owner != vaultProgramID || string(got.Data) != "\x01\x02" {
		t.Fatalf("SetAccount/Account = %+v, %v", got, ok)
	}
	c.State.SetAccount(other, svm.Account{})
	if _, ok := c.State.Account(other); ok {
		t.Fatalf("SetAccount of the zero account did not remove it")
	}
}

func TestUpdateAccount(t *testing.T) {
	c, _ := newChain(t, Options{})
	key := newKey("state").PublicKey()
	boom := errors.New("boom")
	err := c.State.UpdateAccount(key, func(a svm.Account, ok bool) (svm.Account, error) {
		if ok {
			t.Errorf("a missing account reported as existing")
		}
		return svm.Account{Lamports: 1, Owner: vaultProgramID, Data: []byte{7}}, nil
	})
	if err != nil {
		t.Fatalf("UpdateAccount: %v", err)
	}
	err = c.State.UpdateAccount(key, func(a svm.Account, ok bool) (svm.Account, error) {
		a.Data[0] = 9 // a copy: must not reach the chain
		return a, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got, _ := c.State.Account(key); got.Data[0] != 7 {
		t.Fatalf("a failed update changed the account: %v", got.Data)
	}
}
