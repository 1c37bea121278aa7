package ids

import "testing"

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

// TestCoSigner checks the co-signer's public key against its seed text.
func TestCoSigner(t *testing.T) {
	if got, want := CoSigner(), PublicKeyOf(keyFromSeedText(CoSignerSeedText)); got != want {
		t.Errorf("CoSigner %s, want %s", got, want)
	}
}
