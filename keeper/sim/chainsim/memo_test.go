package chainsim

import (
	"errors"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

func TestMemoProgram(t *testing.T) {
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	tests := []struct {
		name     string
		program  solana.PublicKey
		accounts solana.AccountMetaSlice
		data     []byte
		want     error
		wantLog  string
	}{
		{"v2 memo", solana.MemoProgramID, nil, []byte("hello"), nil, `Program log: Memo (len 5): "hello"`},
		{"v1 memo signed", svm.MemoV1ProgramID, solana.AccountMetaSlice{solana.Meta(alice.PublicKey()).SIGNER()}, []byte("hi"), nil, "Program log: Signed by " + alice.PublicKey().String()},
		{"account that did not sign", solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(bob)}, []byte("hi"), svm.ErrMissingRequiredSignature, ""},
		{"invalid UTF-8", solana.MemoProgramID, nil, []byte{0xff, 0xfe}, svm.ErrInvalidInstructionData, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			mustFund(t, c, alice.PublicKey(), 1_000_000)
			ix := solana.NewInstruction(tt.program, tt.accounts, tt.data)
			sig, err := c.SendTransaction(raw(t, signTx(t, []solana.Instruction{ix}, latest(c), alice)))
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			landed, _ := c.Ledger.Transaction(sig)
			if tt.want == nil && landed.Err != nil || tt.want != nil && !errors.Is(landed.Err, tt.want) {
				t.Fatalf("err = %v, want %v", landed.Err, tt.want)
			}
			if tt.wantLog != "" && !slices.Contains(landed.Logs, tt.wantLog) {
				t.Fatalf("logs %q lack %q", landed.Logs, tt.wantLog)
			}
		})
	}
}
