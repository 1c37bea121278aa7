package squadsim_test

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
)

// TestInvokeSignerPrivilege: a program may sign an invocation for its own
// PDA by its seeds, and for nothing else (PrivilegeEscalation).
func TestInvokeSignerPrivilege(t *testing.T) {
	f := newFixture(t, 0)
	prog := key("prog").PublicKey()
	pda, bump, _ := solana.FindProgramAddress([][]byte{[]byte("pda")}, prog)
	_ = f.chain.Setup.Fund(pda, 1_000_000)
	seeds := [][]byte{[]byte("pda"), {bump}}
	err := f.chain.Setup.RegisterProgram(prog, svm.ProgramFunc(func(x *svm.Exec, ix svm.Instruction) error {
		tr := system.NewTransferInstruction(10, pda, f.payee).Build()
		inner := svm.Instruction{ProgramID: solana.SystemProgramID, Data: mustData(t, tr),
			Accounts: []solana.AccountMeta{{PublicKey: pda, IsSigner: true, IsWritable: true}, {PublicKey: f.payee, IsWritable: true}}}
		if ix.Data[0] == 1 {
			return x.Invoke(inner, seeds)
		}
		return x.Invoke(inner)
	}))
	if err != nil {
		t.Fatal(err)
	}
	call := func(signed byte) error {
		f.clock.Advance(1)
		return squadsim.Send(f.chain, f.keeper, solana.NewInstruction(prog, solana.AccountMetaSlice{
			solana.Meta(pda).WRITE(), solana.Meta(f.payee).WRITE(), solana.Meta(solana.SystemProgramID)}, []byte{signed}))
	}
	if err := call(0); !errors.Is(err, svm.ErrPrivilegeEscalation) {
		t.Fatalf("unsigned invocation: %v, want PrivilegeEscalation", err)
	}
	if err := call(1); err != nil {
		t.Fatal(err)
	}
	if got := f.chain.State.Balance(f.payee); got != 10 {
		t.Fatalf("payee holds %d, want 10", got)
	}
}

func mustData(t *testing.T, ix solana.Instruction) []byte {
	d, err := ix.Data()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
