package chainsim

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// TestATACreatesToken2022Accounts: the associated-token-account program takes the token program
// as its sixth account and accepts Token-2022 as the real one does: the address is derived with
// that program in the seeds, the mint must be owned by it, and the account it creates is
// Token-2022's (its ImmutableOwner extension included, 170 bytes) and rent-exempt for that size.
// CreateIdempotent then accepts it, and a Token-2022 mint under the SPL Token program is refused.
func TestATACreatesToken2022Accounts(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, mint := newKey("alice"), newKey("mint-2022").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	m := svm.MintState{Decimals: 6, Initialized: true}
	c.State.SetAccount(mint, svm.Account{Lamports: svm.MintRent, Owner: solana.Token2022ProgramID, Data: m.Encode()})
	advanceSlots(clk, 1)
	addr, err := svm.AssociatedTokenAddressOf(alice.PublicKey(), solana.Token2022ProgramID, mint)
	if err != nil {
		t.Fatal(err)
	}
	splAddr, _ := svm.AssociatedTokenAddress(alice.PublicKey(), mint)
	create := func(ata, program solana.PublicKey) *svm.TxError {
		t.Helper()
		ix := solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
			solana.Meta(alice.PublicKey()).WRITE().SIGNER(), solana.Meta(ata).WRITE(), solana.Meta(alice.PublicKey()),
			solana.Meta(mint), solana.Meta(solana.SystemProgramID), solana.Meta(program),
		}, []byte{1})
		res, err := c.Simulate(raw(t, signTx(t, []solana.Instruction{ix}, latest(c), alice)), SimulateOptions{Accounts: []solana.PublicKey{ata}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Err == nil {
			a := res.Accounts[0]
			if a == nil || a.Owner != solana.Token2022ProgramID || len(a.Data) != svm.Token2022AccountSize || a.Lamports != 2_074_080 {
				t.Fatalf("created account = %+v, want Token-2022's, %d bytes, 2,074,080 lamports", a, svm.Token2022AccountSize)
			}
			return nil
		}
		return res.Err
	}
	if err := create(addr, solana.Token2022ProgramID); err != nil {
		t.Fatalf("create a Token-2022 associated token account: %v", err)
	}
	if err := create(splAddr, solana.TokenProgramID); err == nil {
		t.Fatal("the SPL Token program's address of a Token-2022 mint was created")
	}
	if err := create(splAddr, solana.Token2022ProgramID); err == nil {
		t.Fatal("an address derived for another token program was accepted")
	}
}
