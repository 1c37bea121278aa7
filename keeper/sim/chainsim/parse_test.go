package chainsim

import (
	"errors"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// validWire returns a valid signed transfer.
func validWire(t testing.TB) []byte {
	t.Helper()
	c, _ := newChain(t, Options{})
	return raw(t, transfer(t, newKey("alice"), newKey("bob").PublicKey(), 1, latest(c)))
}

func TestParseRejectsMalformedTransactions(t *testing.T) {
	good := validWire(t)
	// Offsets in a one-signature legacy message: 1 count byte, 64 signature
	// bytes, then header (3), key count, keys.
	const msg = 1 + 64
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tests := []struct {
		name string
		wire []byte
		want string
	}{
		{"empty", nil, "signature count"},
		{"no signatures", []byte{0}, "do not fit"},
		{"truncated", good[:len(good)-3], "decode message"},
		{"trailing bytes", append(append([]byte(nil), good...), 0), "trailing bytes"},
		{"too large", make([]byte, svm.MaxTransactionSize+1), "more than the maximum"},
		{"v1 message", mutate(func(b []byte) []byte { b[msg] = 0x81; return b }), "unsupported message version 1"},
		{"fee payer read-only", mutate(func(b []byte) []byte { b[msg+1] = 1; return b }), "fee payer must be a writable signer"},
		{"signer count mismatch", mutate(func(b []byte) []byte { b[msg] = 2; return b }), "2 required signers"},
		{"program index 0", mutate(func(b []byte) []byte { b[len(b)-12-1-2-1-1] = 0; return b }), "program id index 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svm.ParseTx(tt.wire)
			if !errors.Is(err, svm.ErrInvalidTransaction) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want invalid transaction mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := svm.ParseTx(good); err != nil {
		t.Fatalf("the unmodified transaction: %v", err)
	}
}

func FuzzParseTx(f *testing.F) {
	f.Add(validWire(f))
	f.Add([]byte{1})
	f.Add([]byte{0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := svm.ParseTx(b)
		if err != nil {
			return
		}
		_ = tx.VerifySignatures()
		if terr := tx.Resolve(svm.AccountMap{}); terr == nil {
			for i := range tx.Msg.Instructions {
				_ = tx.Instruction(i)
			}
		}
		_, _ = svm.BudgetOf(tx)
	})
}
