package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &streams{out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "keeper ") || !strings.Contains(out, "revision ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: code %d, out %q", code, out)
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != exitUsage {
		t.Errorf("version with args: code %d, want %d", code, exitUsage)
	}
}

func TestUsageAndHelp(t *testing.T) {
	if code, _, errs := runCLI(t); code != exitUsage || !strings.Contains(errs, "Commands:") {
		t.Errorf("no args: code %d, stderr %q", code, errs)
	}
	if code, _, errs := runCLI(t, "frobnicate"); code != exitUsage || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("unknown: code %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI(t, "--help"); code != exitOK || !strings.Contains(out, "version") {
		t.Errorf("--help: code %d, out %q", code, out)
	}
	for _, c := range commands() {
		code, out, errs := runCLI(t, c.name, "-h")
		if code != exitOK || !strings.HasPrefix(out, "Usage: keeper "+c.name) || errs != "" {
			t.Errorf("%s -h: code %d, out %q, stderr %q", c.name, code, out, errs)
		}
		if code, out, _ := runCLI(t, "help", c.name); code != exitOK || !strings.Contains(out, c.summary) {
			t.Errorf("help %s: code %d, out %q", c.name, code, out)
		}
		if code, _, errs := runCLI(t, c.name, "--no-such-flag"); code != exitUsage || !strings.Contains(errs, "no-such-flag") {
			t.Errorf("%s bad flag: code %d, stderr %q", c.name, code, errs)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good := writeConfig(t, dir)
	os.MkdirAll(filepath.Join(dir, "p"), 0o755)
	policy := "policies:\n  - name: watch\n    kind: alert\n    schedule: \"@every 1m\"\n    select: {target: vaults}\n    when: vault.total_apy < 0.05\n    params: {message: low}\n"
	os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte(policy), 0o600)
	writeKeypair(t, filepath.Join(dir, "key.json"))
	os.WriteFile(good, append(mustRead(t, good), []byte("signer: {keypair: key.json}\n")...), 0o600)
	code, out, errs := runCLI(t, "check", "--config", good)
	if code != exitOK || !strings.Contains(out, "OK: config and 1 policy (1 enabled)") {
		t.Fatalf("check committed config: code %d, out %q, stderr %q", code, out, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("market:\n  base_url: http://x/v2\nnope: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "check", "--config", bad)
	if code != exitUsage {
		t.Errorf("bad config: code %d, want %d (a config error)", code, exitUsage)
	}
	for _, want := range []string{bad + `:3:1: unknown field "nope"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte(strings.Replace(policy, "total_apy", "totl_apy", 1)), 0o600)
	code, _, errs = runCLI(t, "check", "--config", good)
	if code != exitFailed || !strings.Contains(errs, "a.yaml:6:") || !strings.Contains(errs, `policy "watch"`) {
		t.Errorf("bad policy: code %d, stderr %q", code, errs)
	}
	if code, _, _ := runCLI(t, "check", "--config", filepath.Join(t.TempDir(), "missing.yaml")); code != exitUsage {
		t.Errorf("missing config: code %d, want %d (a config error)", code, exitUsage)
	}
}

func TestNewLogger(t *testing.T) {
	var b bytes.Buffer
	l, err := newLogger(&b, "warn", "json")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	if strings.Contains(b.String(), "hidden") || !strings.Contains(b.String(), `"msg":"shown"`) {
		t.Errorf("json logger output %q", b.String())
	}
	b.Reset()
	l, err = newLogger(&b, "info", "text")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("plain")
	if !strings.Contains(b.String(), "INF plain") || strings.Contains(b.String(), "\x1b[") {
		t.Errorf("text logger on a non-terminal must not colour: %q", b.String())
	}
	if _, err := newLogger(&b, "loud", "json"); err == nil {
		t.Error("bad level accepted")
	}
	if _, err := newLogger(&b, "info", "xml"); err == nil {
		t.Error("bad format accepted")
	}
}

func TestPolicyTests(t *testing.T) {
	const dir = "../../policies/policytest/testdata/"
	if code, out, errs := runCLI(t, "test", dir+"pass.test.yaml"); code != exitOK {
		t.Errorf("passing file: code %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runCLI(t, "test", dir+"pass.test.yaml", dir+"fail.test.yaml"); code != exitFailed || !strings.Contains(out, "FAIL") {
		t.Errorf("failing file: code %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "test"); code != exitUsage {
		t.Errorf("no files: code %d", code)
	}
}

func TestMissingKeyHint(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir) // names no keypair: the default ~/.config path
	os.MkdirAll(filepath.Join(dir, "p"), 0o755)
	os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte("policies:\n  - name: a\n    kind: alert\n    schedule: \"@hourly\"\n    select: {target: vaults}\n    when: \"true\"\n    params: {message: m}\n"), 0o600)
	os.WriteFile(cfg, append(mustRead(t, cfg), []byte("signer: {keypair: missing-key.json}\n")...), 0o600)
	for _, cmd := range [][]string{{"run", "--once", "--log-format", "json"}, {"plan"}} {
		code, _, errs := runCLI(t, append(cmd, "--config", cfg)...)
		if code != exitUsage || !strings.Contains(errs, "missing-key.json") || !strings.Contains(errs, "hint: set signer.keypair") {
			t.Errorf("%v: code %d, stderr %q", cmd, code, errs)
		}
	}
}

// writeKeypair writes a new Solana CLI keypair file to path and returns
// its public key.
func writeKeypair(t *testing.T, path string) solana.PublicKey {
	t.Helper()
	pub, priv, _ := ed25519.GenerateKey(nil)
	key, _ := json.Marshal(slices.Collect(func(yield func(int) bool) {
		for _, b := range priv {
			yield(int(b))
		}
	}))
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return solana.PublicKeyFromBytes(pub)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckReportsEverything: a config problem, a policy problem and an
// unset dex program are reported by one check, with the config's exit code.
func TestCheckReportsEverything(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "keeper.yaml")
	text := "policies: [\"p/*.yaml\"]\nmarket: { program_id: SimMarket1111111111111111111111111111111111, base_url: \"http://127.0.0.1:7070/v1\" }\n" +
		"chain: { dex_b_program: SimDexB111111111111111111111111111111111111 }\nsigner: { pubkey: FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo }\n"
	if err := os.WriteFile(cfg, []byte(text+"log: { levl: info }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "p"), 0o755)
	rebalance := "policies:\n  - name: move\n    kind: rebalance\n    schedule: \"@every 1m\"\n    params: {width_ticks: 100}\n"
	broken := "policies:\n  - name: broken\n    kind: alert\n    schedul: \"@every 1m\"\n    select: {target: vaults}\n    when: vault.total_apy < 0.05\n    params: {message: low}\n"
	os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte(rebalance), 0o600)
	os.WriteFile(filepath.Join(dir, "p", "b.yaml"), []byte(broken), 0o600)
	code, _, errs := runCLI(t, "check", "--config", cfg)
	if code != exitUsage {
		t.Errorf("check: exit %d, want %d for the config's problem", code, exitUsage)
	}
	for _, want := range []string{`unknown field "levl"`, `b.yaml:4:5: policy "broken": unknown field "schedul"`, `policy "broken": schedule is required`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// With the config fixed, the rebalance policy lacks chain.dex_a_program.
	os.WriteFile(cfg, []byte(text), 0o600)
	os.Remove(filepath.Join(dir, "p", "b.yaml"))
	code, _, errs = runCLI(t, "check", "--config", cfg)
	if code != exitFailed || !strings.Contains(errs, `policy "move" reads dex-a positions: set chain.dex_a_program`) {
		t.Errorf("check without dex_a_program: exit %d, stderr:\n%s", code, errs)
	}
}

// writePubkeyConfig writes, in dir, a config whose signer is the public
// key FpWL…Vewo alone, and returns its path.
func writePubkeyConfig(t *testing.T, dir string) string {
	t.Helper()
	cfg := filepath.Join(dir, "keeper.yaml")
	text := "policies: [\"p/*.yaml\"]\nmarket: { program_id: SimMarket1111111111111111111111111111111111 }\n" +
		"signer: { pubkey: FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo }\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestPubkey(t *testing.T) {
	cfg := writePubkeyConfig(t, t.TempDir())
	code, out, errs := runCLI(t, "pubkey", "--config", cfg)
	if code != exitOK || out != "FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo\n" {
		t.Errorf("pubkey: exit %d, out %q, stderr %q", code, out, errs)
	}
}

// TestWalletFlagQuotesATypoNotAKey checks --wallet's error: a mistyped address is quoted as written,
// a private key given by mistake is not.
func TestWalletFlagQuotesATypoNotAKey(t *testing.T) {
	cfg := writeConfig(t, t.TempDir())
	const typo = "FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVew0" // '0' is not base58
	if code, _, errs := runCLI(t, "wallet", "--config", cfg, "--wallet", typo); code != exitUsage || !strings.Contains(errs, `"`+typo+`"`) {
		t.Errorf("a mistyped wallet: exit %d, stderr %q", code, errs)
	}
	const key = "4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKmNpQrStUvWxYz23456789abcdefghijkmnopqrsx"
	if code, _, errs := runCLI(t, "wallet", "--config", cfg, "--wallet", key); code != exitUsage || strings.Contains(errs, "4wBqpZM9k7tSAWGT") {
		t.Errorf("a private key as the wallet: exit %d, stderr %q", code, errs)
	}
}

// TestCompletionAndMan: the completion scripts and the manual page come from
// the command definitions: every command and its flags are in them.
func TestCompletionAndMan(t *testing.T) {
	_, bash, _ := runCLI(t, "completion", "bash")
	_, fish, _ := runCLI(t, "completion", "fish")
	_, man, _ := runCLI(t, "man")
	for _, c := range commands() {
		if !strings.Contains(bash, " "+c.name+") ") || !strings.Contains(fish, "-a "+c.name+" ") || !strings.Contains(man, ".SS keeper "+roff(c.name)) {
			t.Errorf("command %s missing from a completion script or the man page", c.name)
		}
		for _, f := range c.flagsOf() {
			if !strings.Contains(bash, flagName(f.Name)) || !strings.Contains(man, ".B "+roff(flagName(f.Name))) {
				t.Errorf("flag %s of %s missing from bash completion or the man page", flagName(f.Name), c.name)
			}
		}
	}
	if sh, err := exec.LookPath("bash"); err == nil {
		script := bash + "\nCOMP_WORDS=(keeper plan --w); COMP_CWORD=2; _keeper; echo \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command(sh, "-c", script).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "--wallet" {
			t.Errorf("bash completes `keeper plan --w` to %q (%v), want --wallet", out, err)
		}
	}
	if code, _, _ := runCLI(t, "completion", "tcsh"); code != exitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", code, exitUsage)
	}
	_, help, _ := runCLI(t, "run", "-h")
	if !strings.Contains(help, "  --config string") || !strings.Contains(help, "  -u string") {
		t.Errorf("run -h does not write flags as the docs do:\n%s", help)
	}
}
