package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSolanaCLIFlags: -k/--keypair replaces the config's signer,
// --commitment its chain.commitment (never processed), and -u with a word
// that is no moniker lists the monikers.
func TestSolanaCLIFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := writePubkeyConfig(t, dir)
	want := writeKeypair(t, filepath.Join(dir, "other.json")).String()
	for _, flag := range []string{"-k", "--keypair"} {
		code, out, errs := runCLI(t, "pubkey", "--config", cfg, flag, filepath.Join(dir, "other.json"))
		if code != exitOK || strings.TrimSpace(out) != want {
			t.Errorf("pubkey %s: exit %d, out %q, stderr %q; want %s", flag, code, out, errs, want)
		}
	}
	code, _, errs := runCLI(t, "plan", "--config", cfg, "-u", "bogus")
	if code != exitUsage || !strings.Contains(errs, "mainnet-beta, devnet, testnet, localhost") || !strings.HasPrefix(errs, "keeper: ") {
		t.Errorf("-u bogus: exit %d, stderr %q; want the monikers", code, errs)
	}
	code, _, errs = runCLI(t, "plan", "--config", cfg, "--commitment", "processed")
	if code != exitUsage || !strings.Contains(errs, "confirmed or finalized") {
		t.Errorf("--commitment processed: exit %d, stderr %q", code, errs)
	}
	cf := &configFlags{path: cfg, commitment: "finalized"}
	if c, err := cf.load(&streams{out: os.Stdout, err: os.Stderr}); err != nil || c.Chain.Commitment != "finalized" {
		t.Errorf("--commitment finalized: %v", err)
	}
}

// TestCompletionOffersValues: bash completes the reports after `keeper
// report` and the monikers after -u.
func TestCompletionOffersValues(t *testing.T) {
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	_, bash, _ := runCLI(t, "completion", "bash")
	for line, want := range map[string]string{
		"COMP_WORDS=(keeper report ''); COMP_CWORD=2":          "rewards depositors vaults",
		"COMP_WORDS=(keeper report d); COMP_CWORD=2":           "depositors",
		"COMP_WORDS=(keeper plan -u dev); COMP_CWORD=3":        "devnet",
		"COMP_WORDS=(keeper run --commitment f); COMP_CWORD=3": "finalized",
	} {
		out, err := exec.Command(sh, "-c", bash+"\n"+line+"; _keeper; echo \"${COMPREPLY[@]}\"\n").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s completes to %q (%v), want %q", line, out, err, want)
		}
	}
	_, fish, _ := runCLI(t, "completion", "fish")
	if !strings.Contains(fish, `'__fish_seen_subcommand_from report' -a "rewards depositors vaults"`) || !strings.Contains(fish, `-s u -x -a "mainnet-beta devnet testnet localhost"`) {
		t.Errorf("fish completion lacks the reports or the monikers:\n%s", fish)
	}
}
