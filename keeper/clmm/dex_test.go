package clmm

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestNewDex(t *testing.T) {
	tests := []struct {
		layout  string
		program solana.PublicKey
		wantErr string
	}{
		{DexA, testKey("a"), ""},
		{DexB, testKey("b"), ""},
		{DexA, solana.PublicKey{}, "clmm: dex-a: program id is not set"},
		{"dex-x", testKey("x"), `unknown dex layout "dex-x"`},
	}
	for _, tt := range tests {
		d, err := NewDex(tt.layout, tt.program)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NewDex(%q) error = %v, want %q", tt.layout, err, tt.wantErr)
			}
			continue
		}
		if err != nil || d.Name() != tt.layout || d.ProgramID() != tt.program || d.Layout().Name() != tt.layout {
			t.Errorf("NewDex(%q) = %+v, %v", tt.layout, d, err)
		}
	}
	if _, _, err := (Dex{}).PositionAddress(testKey("mint")); err == nil {
		t.Error("zero Dex derived a position address")
	}
}

// The position address is re-derived here by hand from the PDA definition:
// sha256(seeds... || bump || program id || "ProgramDerivedAddress"), taking the
// highest bump whose hash is off the ed25519 curve.
func TestPositionAddress(t *testing.T) {
	for _, layout := range []string{DexA, DexB} {
		d := testDex(t, layout)
		for _, label := range []string{"m1", "m2", "m3"} {
			mint := testKey(label)
			addr, bump, err := d.PositionAddress(mint)
			if err != nil {
				t.Fatalf("PositionAddress: %v", err)
			}
			if want := pdaHash(d.ProgramID(), bump, []byte("position"), mint[:]); addr != want {
				t.Errorf("%s %s: address %s, want sha256 derivation %s", layout, label, addr, want)
			}
			if addr.IsOnCurve() {
				t.Errorf("%s %s: address %s is on the curve", layout, label, addr)
			}
			for b := int(bump) + 1; b <= 255; b++ {
				if !pdaHash(d.ProgramID(), uint8(b), []byte("position"), mint[:]).IsOnCurve() {
					t.Errorf("%s %s: bump %d is valid, so %d is not the highest", layout, label, b, bump)
				}
			}
		}
	}
}

func TestPositionAddressDependsOnProgram(t *testing.T) {
	a1, _ := NewDex(DexA, testKey("program one"))
	a2, _ := NewDex(DexA, testKey("program two"))
	x, _, _ := a1.PositionAddress(testKey("mint"))
	y, _, _ := a2.PositionAddress(testKey("mint"))
	if x == y {
		t.Fatal("two program ids gave the same position address")
	}
}

func pdaHash(program solana.PublicKey, bump uint8, seeds ...[]byte) solana.PublicKey {
	h := sha256.New()
	for _, s := range seeds {
		h.Write(s)
	}
	h.Write([]byte{bump})
	h.Write(program[:])
	h.Write([]byte("ProgramDerivedAddress"))
	return solana.PublicKeyFromBytes(h.Sum(nil))
}
