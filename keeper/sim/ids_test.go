package sim

import (
	"testing"

	"github.com/keeper-project/keeper/keeper/clmm"
)

// TestProgramIDs checks the program ids, written out as bytes, against
// their base58 names (the ones config.yaml holds).
func TestProgramIDs(t *testing.T) {
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"market", MarketProgramID.String(), "SimMarket1111111111111111111111111111111111"},
		{"earn", EarnProgramID.String(), "SimEarn111111111111111111111111111111111111"},
		{"dex-a", DexAProgramID.String(), "SimDexA111111111111111111111111111111111111"},
		{"dex-b", DexBProgramID.String(), "SimDexB111111111111111111111111111111111111"},
	} {
		if c.got != c.want {
			t.Errorf("%s program id %s, want %s", c.name, c.got, c.want)
		}
	}
}

// TestWrittenOutValues checks the values the package writes out, rather than
// computes at start-up, against their computation.
func TestWrittenOutValues(t *testing.T) {
	for name, d := range map[string][8]byte{"SimLoan": loanDisc, "SimWithdrawRequest": requestDisc, "SimStrategy": strategyDisc} {
		if want := clmm.Discriminator(name); d != want {
			t.Errorf("discriminator of %s %x, want %x", name, d, want)
		}
	}
	if want := (clmm.U128{}).Sub(clmm.U128{Hi: 1 << 4}); growthStart != want {
		t.Errorf("growthStart %+v, want %+v", growthStart, want)
	}
	if got, want := unknownProgramID.get(), derivedKey("program", "unknown"); got != want {
		t.Errorf("unknownProgramID %s, want %s", got, want)
	}
	if got, want := CoSigner(), publicKeyOf(keyFromSeedText(CoSignerSeedText)); got != want {
		t.Errorf("CoSigner %s, want %s", got, want)
	}
}
