package chainsim

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

func TestSystemCreateAccount(t *testing.T) {
	alice, fresh := newKey("alice"), newKey("fresh")
	tests := []struct {
		name     string
		lamports uint64
		exists   bool
		want     error
	}{
		{"creates", 1_000_000, false, nil},
		{"address in use", 1_000_000, true, svm.CustomError(svm.SystemErrAccountAlreadyInUse)},
		{"funder too poor", 50_000_000, false, svm.CustomError(svm.SystemErrResultWithNegativeLamps)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			mustFund(t, c, alice.PublicKey(), 10_000_000)
			if tt.exists {
				mustFund(t, c, fresh.PublicKey(), 1)
			}
			ix := system.NewCreateAccountInstruction(tt.lamports, 64, vaultProgramID, alice.PublicKey(), fresh.PublicKey()).Build()
			sig, err := c.SendTransaction(raw(t, signTx(t, []solana.Instruction{ix}, latest(c), alice, fresh)))
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			landed, _ := c.Ledger.Transaction(sig)
			if tt.want == nil && landed.Err != nil || tt.want != nil && !errors.Is(landed.Err, tt.want) {
				t.Fatalf("err = %v, want %v", landed.Err, tt.want)
			}
			a, _ := c.State.Account(fresh.PublicKey())
			if created := a.Owner == vaultProgramID && len(a.Data) == 64 && a.Lamports == tt.lamports; created != (tt.want == nil) {
				t.Fatalf("account after = %+v", a)
			}
		})
	}
}
