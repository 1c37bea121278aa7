package signer

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// fixtureSigner returns the fixture wallet's Signer, guarded like the corpus.
func fixtureSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := newSigner(slices.Clone(fixture.WalletKey)).WithGuard(fixtureConfig())
	if err != nil {
		t.Fatalf("WithGuard: %v", err)
	}
	return s
}

func fixtureConfig() GuardConfig {
	c := fixture.GuardConfig()
	return GuardConfig{
		MarketProgram:       c.MarketProgram,
		DexAProgram:         c.DexAProgram,
		DexBProgram:         c.DexBProgram,
		CoSigners:           c.CoSigners,
		MaxComputeUnitPrice: c.MaxComputeUnitPrice,
		ExtraPrograms:       map[Kind][]string{KindRepayCollateral: c.SwapPrograms},
	}
}

func toBounds(b fixture.Bounds) Bounds {
	return Bounds{MaxLamports: b.MaxLamports, MaxTokens: b.MaxTokens, TipAccounts: b.TipAccounts, MaxTip: b.MaxTip}
}

func toAPISigs(sigs []fixture.Signature) []APISignature {
	out := make([]APISignature, len(sigs))
	for i, s := range sigs {
		out[i] = APISignature{PublicKey: s.PublicKey, Signature: s.Signature}
	}
	return out
}

// corpusFile is a case file as committed.
type corpusFile struct {
	name string
	c    fixture.Case
}

func loadCorpus(t testing.TB) []corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "guard", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus files (err %v)", err)
	}
	var out []corpusFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c fixture.Case
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c.Name = strings.TrimSuffix(filepath.Base(p), ".json")
		out = append(out, corpusFile{c.Name, c})
	}
	return out
}

func corpusCase(t testing.TB, name string) fixture.Case {
	t.Helper()
	for _, f := range loadCorpus(t) {
		if f.name == name {
			return f.c
		}
	}
	t.Fatalf("no corpus case %q", name)
	return fixture.Case{}
}

// compile returns message bytes for spec.
func compile(s fixture.Spec) []byte {
	if s.Blockhash.IsZero() {
		s.Blockhash = fixture.Blockhash
	}
	return s.Compile()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// cosign returns the API signature of key over msg, base64.
func cosign(key ed25519.PrivateKey, msg []byte) APISignature {
	return APISignature{PublicKey: fixture.Pub(key).String(), Signature: b64(ed25519.Sign(key, msg))}
}

// verifyWire checks that wire is shortvec(n) || sigs || msg and that every
// signature verifies over msg.
func verifyWire(t *testing.T, wire, msg []byte) {
	t.Helper()
	n, k, err := readShortvec(wire)
	if err != nil {
		t.Fatalf("wire count: %v", err)
	}
	if got := wire[k+64*n:]; !slices.Equal(got, msg) {
		t.Fatalf("wire does not end with the original message bytes")
	}
	m, err := parseMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	if n != int(m.header.numRequiredSignatures) {
		t.Fatalf("wire has %d signatures, message requires %d", n, m.header.numRequiredSignatures)
	}
	for i := range n {
		if !ed25519.Verify(m.keys[i][:], msg, wire[k+64*i:k+64*(i+1)]) {
			t.Fatalf("signature slot %d (%s) does not verify", i, m.keys[i])
		}
	}
}

func slotsOf(t *testing.T, wire []byte) []solana.Signature {
	t.Helper()
	n, k, err := readShortvec(wire)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]solana.Signature, n)
	for i := range out {
		copy(out[i][:], wire[k+64*i:])
	}
	return out
}

func mustSlot(t *testing.T, wire []byte, i int) solana.Signature {
	t.Helper()
	return slotsOf(t, wire)[i]
}
