package signer

import (
	"crypto/ed25519"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// Key texts of the fixture wallet.
func walletJSON() string   { return jsonArray(fixture.WalletKey) }
func walletBase58() string { return solana.PrivateKey(fixture.WalletKey).String() }
func jsonArray(b []byte) string {
	parts := make([]string, len(b))
	for i, v := range b {
		parts[i] = strconv.Itoa(int(v))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// badKeyTexts are malformed keys built from the real secret, so that error
// paths are exercised with secret material in the input.
func badKeyTexts() map[string]struct {
	text string
	want error
} {
	key := fixture.WalletKey
	mismatch := slices.Clone(key)
	copy(mismatch[32:], fixture.Stranger[:])
	b58 := walletBase58()
	return map[string]struct {
		text string
		want error
	}{
		"empty":              {"  \n", errKeyEmpty},
		"63 bytes":           {jsonArray(key[:63]), errKeyLength},
		"65 bytes":           {jsonArray(append(slices.Clone(key), 1)), errKeyLength},
		"byte above 255":     {"[256" + walletJSON()[strings.Index(walletJSON(), ","):], errKeyJSON},
		"negative byte":      {"[-1" + walletJSON()[strings.Index(walletJSON(), ","):], errKeyJSON},
		"json syntax":        {strings.TrimSuffix(walletJSON(), "]") + ",x]", errKeyJSON},
		"json string array":  {`["` + b58 + `"]`, errKeyJSON},
		"base58 invalid":     {b58[:40] + "0" + b58[41:], errKeyBase58},
		"base58 of seed":     {solana.Base58(key[:32]).String(), errKeyLength},
		"halves mismatch":    {jsonArray(mismatch), errKeyMismatch},
		"base58 trailing 0l": {b58 + "0l", errKeyBase58},
	}
}

func writeKey(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	big := writeKey(t, dir, "big", strings.Repeat(" ", maxKeyFileSize)+walletJSON(), 0o600)
	tests := []struct {
		name    string
		text    string
		mode    os.FileMode
		allow   bool
		path    string // overrides the written file
		wantErr string
	}{
		{name: "json 0600", text: walletJSON(), mode: 0o600},
		{name: "json 0400", text: walletJSON() + "\n", mode: 0o400},
		{name: "base58 with newline", text: walletBase58() + "\n", mode: 0o600},
		{name: "json 0644 refused", text: walletJSON(), mode: 0o644, wantErr: "permissions 0644"},
		{name: "json 0640 refused", text: walletJSON(), mode: 0o640, wantErr: "permissions 0640"},
		{name: "json 0604 refused", text: walletJSON(), mode: 0o604, wantErr: "permissions 0604"},
		{name: "json 0620 refused", text: walletJSON(), mode: 0o620, wantErr: "chmod 600"},
		{name: "0644 allowed by config", text: walletJSON(), mode: 0o644, allow: true},
		{name: "missing", path: filepath.Join(dir, "nope.json"), wantErr: "no such file"},
		{name: "directory", path: dir, wantErr: "not a regular file"},
		{name: "oversized", path: big, wantErr: "larger than 4096 bytes"},
		{name: "~user", path: "~root/id.json", wantErr: "not ~user"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.path
			if p == "" {
				p = writeKey(t, dir, strconv.Itoa(i), tt.text, tt.mode)
			}
			s, err := Load(KeySource{Path: p, AllowInsecurePermissions: tt.allow})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				assertNoSecret(t, "error", err.Error())
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkWalletSigner(t, s)
		})
	}
}

func checkWalletSigner(t *testing.T, s *Signer) {
	t.Helper()
	if s.PublicKey() != fixture.Wallet {
		t.Fatalf("public key %s, want %s", s.PublicKey(), fixture.Wallet)
	}
	msg := []byte("message")
	sig, err := s.key.sign(t.Context(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(fixture.Wallet[:], msg, sig[:]) {
		t.Fatal("loaded key does not sign for its public key")
	}
}

func TestLoadMalformed(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range badKeyTexts() {
		t.Run(name, func(t *testing.T) {
			p := writeKey(t, dir, strings.ReplaceAll(name, " ", "-"), tt.text, 0o600)
			_, fileErr := Load(KeySource{Path: p})
			t.Setenv("KEEPER_TEST_KEY", tt.text)
			_, envErr := Load(KeySource{Env: "KEEPER_TEST_KEY"})
			for _, err := range []error{fileErr, envErr} {
				if !errors.Is(err, tt.want) {
					t.Fatalf("err %v, want %v", err, tt.want)
				}
				assertNoSecret(t, "error", err.Error())
			}
			if !strings.Contains(fileErr.Error(), p) || !strings.Contains(envErr.Error(), "KEEPER_TEST_KEY") {
				t.Fatalf("errors do not name their source: %v / %v", fileErr, envErr)
			}
		})
	}
}

func TestLoadEnv(t *testing.T) {
	tests := []struct {
		name, value string
		set         bool
		wantErr     string
	}{
		{name: "base58", value: walletBase58(), set: true},
		{name: "json", value: walletJSON(), set: true},
		{name: "base58 with spaces", value: " " + walletBase58() + "\n", set: true},
		{name: "unset", wantErr: "KEEPER_TEST_KEY: not set"},
		{name: "empty", value: "", set: true, wantErr: "key is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KEEPER_TEST_KEY", tt.value)
			if !tt.set {
				os.Unsetenv("KEEPER_TEST_KEY")
			}
			s, err := Load(KeySource{Env: "KEEPER_TEST_KEY"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkWalletSigner(t, s)
		})
	}
}

func TestLoadSourceChoice(t *testing.T) {
	for _, src := range []KeySource{{}, {Path: "a", Env: "B"}, {AllowInsecurePermissions: true}} {
		if _, err := Load(src); err == nil {
			t.Fatalf("Load(%+v) succeeded", src)
		}
	}
}

func TestLoadExpandsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".config", "solana"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeKey(t, filepath.Join(home, ".config", "solana"), "id.json", walletJSON(), 0o600)
	s, err := Load(KeySource{Path: "~/.config/solana/id.json"})
	if err != nil {
		t.Fatal(err)
	}
	checkWalletSigner(t, s)
}

func TestGenerateAndWriteKeypairFile(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if a.PublicKey() == b.PublicKey() {
		t.Fatal("two generated keys are equal")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := a.WriteKeypairFile("~/sim.json"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, "sim.json")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %#o, want 0600", info.Mode().Perm())
	}
	loaded, err := Load(KeySource{Path: p})
	if err != nil || loaded.PublicKey() != a.PublicKey() {
		t.Fatalf("reload: %v, key %v", err, loaded)
	}
	// The Solana CLI format, as solana-go reads it.
	cli, err := solana.PrivateKeyFromSolanaKeygenFile(p)
	if err != nil || cli.PublicKey() != a.PublicKey() {
		t.Fatalf("solana-go reads %v, err %v", cli.PublicKey(), err)
	}
	// Never overwrite.
	err = b.WriteKeypairFile(p)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("overwrite: %v, want ErrExist", err)
	}
	if again, _ := Load(KeySource{Path: p}); again.PublicKey() != a.PublicKey() {
		t.Fatal("existing key file was replaced")
	}
	if err := a.WriteKeypairFile(filepath.Join(home, "missing-dir", "x.json")); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}
