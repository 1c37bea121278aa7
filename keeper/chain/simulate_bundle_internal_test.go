package chain

import (
	"errors"
	"testing"
)

// TestSimulateSequenceUnavailable: an endpoint without simulateBundle is
// asked once and then remembered.
func TestSimulateSequenceUnavailable(t *testing.T) {
	f := newSimFixture(t)
	s := f.tx(t, false)
	for range 2 {
		if _, err := f.c.SimulateSequence(t.Context(), [][]byte{s.Raw}, f.wallet.PublicKey()); !errors.Is(err, ErrBundleSimUnavailable) {
			t.Fatalf("err %v, want ErrBundleSimUnavailable", err)
		}
	}
	if n := len(f.fc.callsOf("simulateBundle")); n != 1 {
		t.Errorf("simulateBundle asked %d times, want once", n)
	}
}
