//go:build cgo

package p11

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/softhsm"
)

// TestSoftHSMSessionLost: a real token's session closed under the key (as
// a token reset or a module restart does) is re-opened, logged in again,
// and the signature made; the key is the one read at start.
func TestSoftHSMSessionLost(t *testing.T) {
	tk := softhsm.New(t)
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{1})
	k, err := Open(t.Context(), Config{Module: tk.Module, TokenLabel: tk.Label, KeyID: key.ID, Timeout: time.Minute}, []byte(tk.PIN))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.Close() })
	lost := k.sess
	lost.close() // the handle is now invalid, and the login ended with the token's last session
	msg := []byte("after the session was lost")
	sig, err := k.Sign(t.Context(), msg)
	if err != nil {
		t.Fatalf("sign after the session was lost: %v", err)
	}
	if !ed25519.Verify(key.Public, msg, sig) {
		t.Error("signature does not verify")
	}
	if k.sess == lost || k.sess == nil {
		t.Error("the lost session was not replaced")
	}
}
