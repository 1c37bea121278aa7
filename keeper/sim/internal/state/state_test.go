package state

import (
	"testing"

	"github.com/keeper-project/keeper/keeper/clmm"
)

// TestDiscriminators checks the account discriminators, written out rather
// than computed at start-up, against their computation.
func TestDiscriminators(t *testing.T) {
	for name, d := range map[string][8]byte{"SimLoan": loanDisc, "SimWithdrawRequest": requestDisc, "SimStrategy": strategyDisc} {
		if want := clmm.Discriminator(name); d != want {
			t.Errorf("discriminator of %s %x, want %x", name, d, want)
		}
	}
}
