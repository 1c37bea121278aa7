package chain

import (
	"errors"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestSimulateSequenceUnavailable: an endpoint without simulateBundle is
// asked once and then remembered.
func TestSimulateSequenceUnavailable(t *testing.T) {
	f := newSimFixture(t)
	raw := f.tx(t, false)
	for range 2 {
		if _, err := f.c.SimulateSequence(t.Context(), [][]byte{raw}, f.wallet.PublicKey()); !errors.Is(err, ErrBundleSimUnavailable) {
			t.Fatalf("err %v, want ErrBundleSimUnavailable", err)
		}
	}
	if n := len(f.fc.callsOf("simulateBundle")); n != 1 {
		t.Errorf("simulateBundle asked %d times, want once", n)
	}
}

// TestSimulateRefusesTheWalletsSignature: a transaction that carries the
// wallet's signature, in the fee payer's slot or another, is refused before
// any request leaves the process, by Simulate and SimulateSequence alike;
// the same bytes with the wallet's slot zeroed (another signer's signature
// kept) are simulated.
func TestSimulateRefusesTheWalletsSignature(t *testing.T) {
	f := newSimFixture(t)
	payer := newKey(t)
	tx, err := solana.NewTransaction([]solana.Instruction{solana.NewInstruction(solana.SystemProgramID,
		solana.AccountMetaSlice{solana.Meta(f.wallet.PublicKey()).WRITE().SIGNER()}, []byte{2})},
		f.fc.newBlockhash(), solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if !tx.Message.AccountKeys[1].Equals(f.wallet.PublicKey()) {
		t.Fatalf("signers %v, want the wallet second", tx.Message.AccountKeys)
	}
	tx.Signatures = make([]solana.Signature, 2)
	unsigned, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cosigned := signSlot(t, unsigned, 0, payer) // the wallet's slot zero
	signed := []struct {
		name string
		raw  []byte
	}{
		{"fee payer", f.signed(t, false).Raw},
		{"second signer", signSlot(t, cosigned, 1, f.wallet)},
	}
	for _, tt := range signed {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.fc.calls)
			if _, err := f.c.Simulate(t.Context(), tt.raw, f.wallet.PublicKey()); !errors.Is(err, ErrSignedByWallet) {
				t.Errorf("Simulate: %v, want ErrSignedByWallet", err)
			}
			if _, err := f.c.SimulateSequence(t.Context(), [][]byte{f.tx(t, false), tt.raw}, f.wallet.PublicKey()); !errors.Is(err, ErrSignedByWallet) {
				t.Errorf("SimulateSequence: %v, want ErrSignedByWallet", err)
			}
			if n := len(f.fc.calls) - before; n != 0 {
				t.Errorf("%d requests made for a transaction the wallet signed, want none", n)
			}
		})
	}
	if _, err := f.c.Simulate(t.Context(), cosigned, f.wallet.PublicKey()); errors.Is(err, ErrSignedByWallet) {
		t.Errorf("Simulate of a transaction signed by its payer alone: %v", err)
	}
	if len(f.fc.callsOf("simulateTransaction")) == 0 {
		t.Error("the transaction signed by another key alone was not simulated")
	}
}

// signSlot returns a copy of the wire transaction raw with signature slot i
// holding key's signature of its message.
func signSlot(t *testing.T, raw []byte, i int, key solana.PrivateKey) []byte {
	t.Helper()
	tx, err := decodeTx(raw)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := key.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(raw)
	copy(out[1+64*i:], sig[:])
	return out
}
