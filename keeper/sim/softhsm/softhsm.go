// Package softhsm makes SoftHSM 2 tokens holding Ed25519 keys for tests of
// the signer's PKCS#11 key source: the simulator's stand-in for a hardware
// key store. It uses SoftHSM's own tools (softhsm2-util) and OpenSC's
// pkcs11-tool, as an operator would.
//
// A test that needs a token calls [New]. Where the tools are missing it
// skips, saying what to install, except under CI=true, where it fails:
// CI installs them (.ci/run), and a token test that silently skipped there
// would prove nothing.
package softhsm

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// Modules are the paths where distributions install SoftHSM 2's PKCS#11
// library; the first that exists is used.
var Modules = []string{
	"/usr/lib/softhsm/libsofthsm2.so",                  // Debian, Ubuntu
	"/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so", // Debian multiarch
	"/usr/lib64/pkcs11/libsofthsm2.so",                 // Fedora
	"/usr/local/lib/softhsm/libsofthsm2.so",            // built from source
	"/opt/homebrew/lib/softhsm/libsofthsm2.so",         // Homebrew
}

// Token is a SoftHSM 2 token made for one test.
type Token struct {
	// Module is the SoftHSM library; Label the token's label.
	Module, Label string
	// PIN is the user PIN, and PINFile a file holding it (mode 0600).
	PIN, PINFile string
	// Env is the environment a keeper process needs to see the token
	// (SOFTHSM2_CONF=...); New also sets it for the test process.
	Env []string
	dir string
}

// Key is a key pair made in a token.
type Key struct {
	Label string
	ID    []byte
	// Public is the public key, for an Ed25519 key; nil for another type.
	Public ed25519.PublicKey
}

// New makes an empty token in a temporary folder of t and points SoftHSM
// at it for the rest of the test (t.Setenv: the test cannot be parallel).
// It skips the test when SoftHSM or pkcs11-tool is missing, and fails it
// instead under CI=true.
func New(t testing.TB) *Token {
	t.Helper()
	module := Need(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "softhsm2.conf")
	text := fmt.Sprintf("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n", filepath.Join(dir, "tokens"))
	if err := os.Mkdir(filepath.Join(dir, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", conf)
	tk := &Token{Module: module, Label: "keeper-test", PIN: "8126-5514", Env: []string{"SOFTHSM2_CONF=" + conf}, dir: dir}
	tk.PINFile = filepath.Join(dir, "pin")
	if err := os.WriteFile(tk.PINFile, []byte(tk.PIN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tk.run(t, "softhsm2-util", "--init-token", "--free", "--label", tk.Label, "--pin", tk.PIN, "--so-pin", "5678-1234")
	return tk
}

// Need returns the path of SoftHSM's library when SoftHSM and pkcs11-tool
// are installed; else it skips t, or fails it under CI=true.
func Need(t testing.TB) string {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		msg := what + ": install SoftHSM 2 and OpenSC (Debian: apt-get install softhsm2 opensc) to run the PKCS#11 token tests"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must run them, not skip them")
		}
		t.Skip(msg)
	}
	for _, tool := range []string{"softhsm2-util", "pkcs11-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(tool + " not found")
		}
	}
	for _, m := range Modules {
		if _, err := os.Stat(m); err == nil {
			return m
		}
	}
	missing("SoftHSM's library libsofthsm2.so not found")
	return ""
}

// AddKey makes a key pair of keyType (pkcs11-tool's --key-type:
// "EC:edwards25519", "EC:prime256v1", "rsa:2048") labelled label with id in
// the token, as docs/hardware-keys.md tells an operator to.
func (tk *Token) AddKey(t testing.TB, keyType, label string, id []byte) Key {
	t.Helper()
	out := tk.run(t, "pkcs11-tool", "--module", tk.Module, "--token-label", tk.Label, "--login", "--pin", tk.PIN,
		"--keypairgen", "--key-type", keyType, "--label", label, "--id", hex.EncodeToString(id))
	k := Key{Label: label, ID: id}
	if keyType == "EC:edwards25519" {
		k.Public = ecPoint(t, out)
	}
	return k
}

// Delete deletes the token, as pulling a hardware token out would take it
// away from a running keeper.
func (tk *Token) Delete(t testing.TB) {
	t.Helper()
	tk.run(t, "softhsm2-util", "--delete-token", "--token", tk.Label)
}

// pointRE finds the public key's EC_POINT in pkcs11-tool's listing: a DER
// OCTET STRING of 32 bytes.
var pointRE = regexp.MustCompile(`EC_POINT:\s+0420([0-9a-f]{64})\b`)

// ecPoint reads the Ed25519 public key pkcs11-tool printed.
func ecPoint(t testing.TB, out []byte) ed25519.PublicKey {
	t.Helper()
	m := pointRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("pkcs11-tool printed no Ed25519 EC_POINT:\n%s", out)
	}
	pub, err := hex.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// run runs a SoftHSM or OpenSC tool on the token and returns its output.
func (tk *Token) run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), tk.Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, bytes.TrimSpace(out))
	}
	return out
}
