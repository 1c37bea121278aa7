package signer

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestReadOnlySignsNothing(t *testing.T) {
	pk := solana.MustPublicKeyFromBase58("FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo")
	r := NewReadOnly(pk)
	if !r.PublicKey().Equals(pk) {
		t.Errorf("PublicKey = %s", r.PublicKey())
	}
	if s, err := r.SignSequence(nil, KindRepay, Bounds{}); s != nil || !errors.Is(err, ErrReadOnly) {
		t.Errorf("SignSequence = %v, %v; want ErrReadOnly", s, err)
	}
	if s, err := r.SignTip([]byte{1}, nil, 1); s != nil || !errors.Is(err, ErrReadOnly) {
		t.Errorf("SignTip = %v, %v; want ErrReadOnly", s, err)
	}
	if err := r.CheckSequence(nil, KindRepay, Bounds{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CheckSequence = %v; want ErrReadOnly", err)
	}
	if b, err := r.Unsigned(nil); b != nil || !errors.Is(err, ErrReadOnly) {
		t.Errorf("Unsigned = %v, %v; want ErrReadOnly", b, err)
	}
}
