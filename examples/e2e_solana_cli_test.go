package examples_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ESolanaCLIHabits runs keeper as a Solana operator would: a config
// that names neither an RPC nor a keypair takes both from the Solana CLI's
// config file (in a temporary HOME) and says so; -u takes a URL or a
// moniker in place of chain.rpc_url; --version and -V print the version.
func TestE2ESolanaCLIHabits(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	cfg := w.configEdited(t, "cli", []string{autoRepay}, func(c map[string]any) {
		delete(section(c, "chain"), "rpc_url")
		delete(section(c, "signer"), "keypair")
	})
	home := t.TempDir()
	cliDir := filepath.Join(home, ".config", "solana", "cli")
	if err := os.MkdirAll(cliDir, 0o755); err != nil {
		t.Fatal(err)
	}
	yml := "---\njson_rpc_url: \"" + s.urls.RPC + "\"\nwebsocket_url: \"\"\nkeypair_path: " + s.keypair + "\ncommitment: confirmed\n"
	if err := os.WriteFile(filepath.Join(cliDir, "config.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := procOptions{env: []string{"HOME=" + home}}
	run := func(args ...string) result {
		t.Helper()
		r, err := runUntilDoneWith(context.Background(), env, w.dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	r := run("plan", "--config", cfg)
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, "chain.rpc_url and signer.keypair from the Solana CLI config "+filepath.Join(cliDir, "config.yml")) {
		t.Errorf("plan did not say it read the Solana CLI config; stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "auto-repay") {
		t.Errorf("plan with the Solana CLI's RPC and key printed:\n%s", r.stdout)
	}

	// -u with the simulator's URL is the same RPC; -u l is the Solana CLI's
	// localhost:8899, where nothing listens: the chain reads fail there.
	run("plan", "--config", cfg, "-u", s.urls.RPC).wantExit(t, 0)
	r = run("plan", "--config", cfg, "-u", "l")
	if !strings.Contains(r.stderr, "on http://localhost:8899: dial tcp") || strings.Contains(r.stderr, "chain.rpc_url and") {
		t.Errorf("plan -u l did not read from http://localhost:8899 alone\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if r = run("plan", "--config", cfg, "-u", "mainnet"); r.code != 2 || !strings.Contains(r.stderr, `"mainnet"`) {
		t.Errorf("plan -u mainnet: exit %d, want 2 and the word shown; stderr:\n%s", r.code, r.stderr)
	}

	for _, flag := range []string{"--version", "-V"} {
		if r := run(flag).wantExit(t, 0); !strings.HasPrefix(r.stdout, "keeper ") {
			t.Errorf("keeper %s printed %q", flag, r.stdout)
		}
	}
}
