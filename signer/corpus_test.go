package signer

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// TestCorpusUpToDate proves the committed corpus is what the generator
// produces (run go generate ./signer after changing it).
func TestCorpusUpToDate(t *testing.T) {
	files := loadCorpus(t)
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	var want []string
	for _, c := range fixture.Corpus() {
		want = append(want, c.Name)
		b, err := c.JSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("testdata", "guard", c.Name+".json"))
		if err != nil {
			t.Fatalf("case %s: %v (run go generate ./signer)", c.Name, err)
		}
		if string(got) != string(b) {
			t.Errorf("case %s: committed file differs from the generator's output (run go generate ./signer)", c.Name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("corpus files %v, generator cases %v", names, want)
	}
}

// TestGuardCorpus runs every corpus case through decode, guard and sign.
func TestGuardCorpus(t *testing.T) {
	s := fixtureSigner(t)
	var benign, hostile int
	for _, f := range loadCorpus(t) {
		t.Run(f.name, func(t *testing.T) {
			c := f.c
			signed, err := decodeAndSign(s, c)
			if c.WantRule == "" {
				benign++
				if err != nil {
					t.Fatalf("benign case refused: %v", err)
				}
				checkSigned(t, s, c, signed)
				return
			}
			hostile++
			ref, ok := errors.AsType[*Refusal](err)
			if !ok {
				t.Fatalf("want refusal %s, got err=%v signed=%v", c.WantRule, err, signed != nil)
			}
			if string(ref.Rule) != c.WantRule {
				t.Fatalf("rule %s, want %s (%v)", ref.Rule, c.WantRule, err)
			}
			if signed != nil {
				t.Fatal("refused but returned a signed transaction")
			}
		})
	}
	if benign < len(Kinds()) || hostile < 10 {
		t.Fatalf("corpus too small: %d benign, %d hostile", benign, hostile)
	}
}

// TestCorpusCoversEveryKind makes sure a benign case exists for each kind.
func TestCorpusCoversEveryKind(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range loadCorpus(t) {
		if f.c.WantRule == "" {
			seen[f.c.Kind] = true
		}
	}
	for _, k := range Kinds() {
		if !seen[string(k)] {
			t.Errorf("no benign corpus case for kind %s", k)
		}
	}
}

func decodeAndSign(s *Signer, c fixture.Case) (*Signed, error) {
	tx, err := DecodeAPITransaction(c.Message, toAPISigs(c.Signatures))
	if err != nil {
		return nil, err
	}
	if len(c.Sequence) == 0 {
		return s.Sign(tx, Kind(c.Kind), toBounds(c.Bounds))
	}
	txs := []*Tx{tx}
	for _, next := range c.Sequence {
		t, err := DecodeAPITransaction(next.Message, toAPISigs(next.Signatures))
		if err != nil {
			return nil, err
		}
		txs = append(txs, t)
	}
	signed, err := s.SignSequence(txs, Kind(c.Kind), toBounds(c.Bounds))
	if err != nil {
		return nil, err
	}
	return signed[0], nil
}

func checkSigned(t *testing.T, s *Signer, c fixture.Case, signed *Signed) {
	t.Helper()
	tx, err := DecodeAPITransaction(c.Message, toAPISigs(c.Signatures))
	if err != nil {
		t.Fatal(err)
	}
	msg := tx.MessageBytes()
	verifyWire(t, signed.Wire, msg)
	pub := s.PublicKey()
	if !ed25519.Verify(pub[:], msg, signed.Signature[:]) {
		t.Fatal("our signature does not verify")
	}
	if signed.TxID != mustSlot(t, signed.Wire, 0) {
		t.Fatal("TxID is not the first signature")
	}
	if signed.Blockhash != fixture.Blockhash {
		t.Fatalf("blockhash %s, want %s", signed.Blockhash, fixture.Blockhash)
	}
	// Co-signatures are carried over untouched.
	for _, as := range c.Signatures {
		sig, err := decodeSignature(as.Signature)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(slotsOf(t, signed.Wire), sig) {
			t.Fatalf("co-signature of %s missing from the wire transaction", as.PublicKey)
		}
	}
}
