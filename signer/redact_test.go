package signer

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// secretForms lists the texts that would reveal key: the whole key and its
// seed in base58, base64 (three alphabets), hex (both cases) and decimal
// arrays (JSON and fmt styles), plus 12-byte prefixes of the seed in hex and
// decimal, and every 10-character window of the base58 and base64 texts.
func secretForms(key []byte) []string {
	var forms []string
	for _, b := range [][]byte{key, key[:32]} {
		forms = append(forms, solana.Base58(b).String(), hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding} {
			forms = append(forms, windows(enc.EncodeToString(b), 10)...)
		}
		forms = append(forms, windows(solana.Base58(b).String(), 10)...)
	}
	for _, b := range [][]byte{key, key[:32], key[:12]} {
		forms = append(forms, hex.EncodeToString(b[:min(len(b), 12)]))
		for _, sep := range []string{",", ", ", " "} {
			parts := make([]string, len(b))
			for i, v := range b {
				parts[i] = strconv.Itoa(int(v))
			}
			forms = append(forms, strings.Join(parts, sep))
		}
	}
	return forms
}

func windows(s string, n int) []string {
	var out []string
	for i := 0; i+n <= len(s); i++ {
		out = append(out, s[i:i+n])
	}
	return out
}

// assertNoSecret fails if out shows any form of the fixture wallet's secret.
func assertNoSecret(t *testing.T, where, out string) {
	t.Helper()
	assertNoSecretOf(t, fixture.WalletKey, where, out)
}

func assertNoSecretOf(t *testing.T, key []byte, where, out string) {
	t.Helper()
	for _, f := range secretForms(key) {
		if strings.Contains(out, f) {
			t.Fatalf("%s leaks secret material (%q) in %q", where, f, out)
		}
	}
}

func TestSecretFormsDetectLeaks(t *testing.T) {
	// The detector itself must fire on the real thing.
	key := fixture.WalletKey
	leaks := []string{
		fmt.Sprintf("%v", []byte(key)), fmt.Sprintf("%x", []byte(key)), solana.PrivateKey(key).String(),
		base64.StdEncoding.EncodeToString(key), walletJSON(), fmt.Sprintf("%d", []byte(key[:20])),
	}
	for _, l := range leaks {
		found := false
		for _, f := range secretForms(key) {
			found = found || strings.Contains("x"+l+"x", f)
		}
		if !found {
			t.Fatalf("detector misses %q", l)
		}
	}
}

type exported struct{ S *Signer }
type exportedValue struct{ S Signer }
type unexported struct{ s *Signer }
type unexportedValue struct{ s Signer }

func TestSignerRedactsInFmt(t *testing.T) {
	s := fixtureSigner(t)
	values := map[string]any{
		"pointer": s, "value": *s, "exported field": exported{s}, "exported value field": exportedValue{*s},
		"unexported field": unexported{s}, "unexported value field": unexportedValue{*s}, "slice": []*Signer{s},
		"map": map[string]Signer{"k": *s},
	}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%100.50v"} {
			out := fmt.Sprintf(verb, v)
			assertNoSecret(t, name+" "+verb, out)
		}
	}
	if got := fmt.Sprint(s); got != "signer("+fixture.Wallet.String()+")" {
		t.Fatalf("String = %q", got)
	}
	if got := fmt.Sprintf("%#v", s); !strings.Contains(got, fixture.Wallet.String()) || !strings.Contains(got, "[redacted]") {
		t.Fatalf("GoString = %q", got)
	}
}

func TestSignerRedactsInSlog(t *testing.T) {
	s := fixtureSigner(t)
	for _, h := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
	} {
		var buf bytes.Buffer
		log := slog.New(h.new(&buf))
		log.Info("signer", "signer", s, "value", *s, "nested", exported{s}, "hidden", unexportedValue{*s},
			slog.Group("g", "s", s), "err", fmt.Errorf("wrapped %v", s))
		log.With("signer", s).Info("with")
		out := buf.String()
		assertNoSecret(t, h.name+" handler", out)
		if !strings.Contains(out, fixture.Wallet.String()) {
			t.Fatalf("%s handler output lacks the public key: %s", h.name, out)
		}
	}
}

func TestSignerRedactsInMarshalling(t *testing.T) {
	s := fixtureSigner(t)
	for name, v := range map[string]any{"pointer": s, "value": *s, "struct": exported{s}, "value struct": exportedValue{*s}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		assertNoSecret(t, "json "+name, string(b))
		if !strings.Contains(string(b), `"publicKey":"`+fixture.Wallet.String()+`"`) {
			t.Fatalf("json %s = %s", name, b)
		}
	}
	txt, err := s.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "text", string(txt))
	// The inner secret redacts itself too, for anything that reaches it.
	k := s.key
	assertNoSecret(t, "secret", fmt.Sprintf("%v %+v %#v %s %x %d", k, *k, k, k, k, k))
	if b, _ := json.Marshal(k); strings.Contains(string(b), "[") && !strings.Contains(string(b), "redacted") {
		t.Fatalf("secret json = %s", b)
	}
}

func TestGeneratedSignerRedacts(t *testing.T) {
	s, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "s", s)
	b, _ := json.Marshal(s)
	out := fmt.Sprintf("%v %+v %#v %s %x %d", s, *s, s, s, s, s) + buf.String() + string(b)
	var nums []int
	if err := json.Unmarshal(s.key.keypairJSON(), &nums); err != nil || len(nums) != 64 {
		t.Fatalf("keypair JSON: %v (%d values)", err, len(nums))
	}
	key := make([]byte, len(nums))
	for i, n := range nums {
		key[i] = byte(n)
	}
	assertNoSecretOf(t, key, "generated signer", out)
}

// TestErrorsCarryNoSecret drives the error paths that see the key or
// messages and checks none of them reveals it.
func TestErrorsCarryNoSecret(t *testing.T) {
	s := fixtureSigner(t)
	var errs []error
	_, err := s.WithGuard(GuardConfig{})
	errs = append(errs, err)
	_, err = s.WithGuard(GuardConfig{MarketProgram: "bad!", Programs: map[Kind][]string{"x": nil}})
	errs = append(errs, err)
	_, err = newSigner(fixture.Key("unguarded")).Sign(&Tx{}, KindRepay, Bounds{})
	errs = append(errs, err)
	_, err = s.SignTip([]byte{1, 2, 3}, nil, 0)
	errs = append(errs, err)
	for _, f := range loadCorpus(t) {
		_, err := decodeAndSign(s, f.c)
		errs = append(errs, err)
	}
	errs = append(errs, s.WriteKeypairFile(t.TempDir()))
	n := 0
	for _, err := range errs {
		if err == nil {
			continue
		}
		n++
		assertNoSecret(t, "error", err.Error())
		assertNoSecret(t, "error %+v", fmt.Sprintf("%+v", err))
	}
	if n < 10 {
		t.Fatalf("only %d errors exercised", n)
	}
	if !errors.Is(errs[2], errNoGuard) {
		t.Fatalf("unguarded Sign: %v", errs[2])
	}
}
