package examples_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim"
)

// TestE2ECheckAndTest checks the exit codes of `keeper check` and `keeper test`.
func TestE2ECheckAndTest(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir := t.TempDir()
	good, err := os.ReadFile(autoRepay)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(good), "trigger_health:", "trigger_healht:", 1)
	withKey := func(path string) func(map[string]any) {
		return func(cfg map[string]any) { cfg["signer"].(map[string]any)["keypair"] = path }
	}
	key := writeKeypair(t, filepath.Join(dir, "key.json"), 0o600)
	writeConfig(t, dir, "good", map[string][]byte{"auto-repay.yaml": good}, withKey(key))
	writeConfig(t, dir, "bad", map[string][]byte{"auto-repay.yaml": []byte(bad)}, withKey(key))
	writeConfig(t, dir, "nokey", map[string][]byte{"auto-repay.yaml": good}, withKey(filepath.Join(dir, "absent.json")))
	writeConfig(t, dir, "openkey", map[string][]byte{"auto-repay.yaml": good},
		withKey(writeKeypair(t, filepath.Join(dir, "open.json"), 0o644)))
	if err := os.WriteFile(filepath.Join(dir, "short.json"), []byte("[1,2,3]"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, "shortkey", map[string][]byte{"auto-repay.yaml": good}, withKey(filepath.Join(dir, "short.json")))
	examplesDir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		output string
	}{
		{"good policy", []string{"check", "--config", filepath.Join(dir, "good.yaml")}, 0, "OK: config and 2 policies (2 enabled)"},
		{"missing key file, as run refuses", []string{"check", "--config", filepath.Join(dir, "nokey.yaml")}, 2, "absent.json"},
		{"group-readable key file, as run refuses", []string{"check", "--config", filepath.Join(dir, "openkey.yaml")}, 2, "open.json"},
		{"key of the wrong length, as run refuses", []string{"check", "--config", filepath.Join(dir, "shortkey.yaml")}, 2, "short.json"},
		{"unknown policy key", []string{"check", "--config", filepath.Join(dir, "bad.yaml")}, 1, "auto-repay.yaml:"},
		{"passing policy test", []string{"test", filepath.Join(examplesDir, "testdata/e2e/healthy-loan.test.yaml")}, 0, "1 passed, 0 failed"},
		{"failing policy test", []string{"test", filepath.Join(examplesDir, "testdata/e2e/healthy-loan-fails.test.yaml")}, 1, "0 passed, 1 failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runKeeper(t, dir, tc.args...).wantExit(t, tc.code)
			if out := r.stdout + r.stderr; !strings.Contains(out, tc.output) {
				t.Errorf("output %q, want it to contain %q", out, tc.output)
			}
			if tc.name == "unknown policy key" && !strings.Contains(r.stderr, "trigger_healht") {
				t.Errorf("check names no unknown key: %q", r.stderr)
			}
		})
	}
}

// TestE2ESimControlRealClock serves the control routes on a real-time simulator: the state reads,
// the clock refuses to be moved.
func TestE2ESimControlRealClock(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSimWith(t, "--control")
	st := s.state(t)
	if st.Wallet.Address != s.wallet || st.Wallet.Lamports != 10*sol || st.Strategies["alpha"].Idle != alphaIdle {
		t.Errorf("state of a fresh simulator: wallet %+v, alpha %+v", st.Wallet, st.Strategies["alpha"])
	}
	_, err := s.advance(t.Context(), sim.AdvanceRequest{Seconds: 1})
	if err == nil || !strings.Contains(err.Error(), "409") || !strings.Contains(err.Error(), "not manual") {
		t.Errorf("advance of a real clock: %v, want 409 saying the clock is not manual", err)
	}
}

// TestE2ERunSimSmoke runs `keeper run --sim` briefly: it starts, runs and exits 0, and its
// shutdown waits at most 3 s for runs in progress (the demo scripts a transaction to be dropped,
// which would hold the daemon's 30 s bound).
func TestE2ERunSimSmoke(t *testing.T) {
	needBinary(t)
	t.Parallel()
	examplesDir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r := runKeeper(t, t.TempDir(), "run", "--sim", "--sim-for", "2s", "--config", filepath.Join(examplesDir, "..", "config.yaml"),
		"--log-format", "json").wantExit(t, 0)
	if !strings.Contains(r.stdout, "What keeper did in the simulation") || !strings.Contains(r.stderr, "Simulator started") {
		t.Errorf("keeper run --sim: stdout %q, stderr %.2000s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, `"msg":"Stopping: no new runs; waiting for runs in progress","timeout":3}`) {
		t.Errorf("keeper run --sim: the shutdown is not bounded to 3 s; stderr %.3000s", r.stderr)
	}
}

// TestE2ECheckOnline: amounts written with a unit ("1 SOL", "300 USDC") are checked against the
// chain's mints by `keeper check --online`: a max_amount in SOL for a policy of USDC loans is
// refused with the policy, the key and why; offline, check cannot know and passes it; in USDC it
// passes online too.
func TestE2ECheckOnline(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	usdc := s.address(t, "mint", "USDC")
	policy := func(name, amount string) string {
		path := filepath.Join(t.TempDir(), name+".yaml")
		text := fmt.Sprintf("policies:\n  - name: %s\n    kind: repay\n    schedule: \"@every 5s\"\n    select: { principal_mints: [%s] }\n"+
			"    params: { trigger_health: 0.2, target_health: 0.3, max_amount: %s }\n", name, usdc, amount)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	wrong := w.config(t, "wrong", []string{policy("in-sol", "1 SOL")})
	runKeeper(t, w.dir, "check", "--config", wrong).wantExit(t, 0)
	r := runKeeper(t, w.dir, "check", "--online", "--config", wrong).wantExit(t, 1)
	if !strings.Contains(r.stderr, "policy in-sol: params.max_amount 1 SOL is in SOL, but the amount is spent in USDC") {
		t.Errorf("check --online: %q", r.stderr)
	}
	right := w.config(t, "right", []string{policy("in-usdc", "300 USDC")})
	if r := runKeeper(t, w.dir, "check", "--online", "--config", right).wantExit(t, 0); !strings.Contains(r.stdout, "amounts checked") {
		t.Errorf("check --online: %q", r.stdout)
	}
	// Pinned tip accounts are checked against the engine's when a policy lands bundles.
	tips := s.state(t).TipAccounts
	pinned := func(name string, accounts ...string) string {
		return w.configEdited(t, name, []string{claimWithdrawals}, func(cfg map[string]any) {
			section(section(cfg, "chain"), "tip")["accounts"] = accounts
		})
	}
	stranger := "11111111111111111111111111111112"
	r = runKeeper(t, w.dir, "check", "--online", "--config", pinned("stale-tips", tips[0], stranger)).wantExit(t, 1)
	if !strings.Contains(r.stderr, "chain.tip.accounts[1] ("+stranger+") is not one of the block engine's tip accounts") {
		t.Errorf("check --online with a stale tip account: %q", r.stderr)
	}
	runKeeper(t, w.dir, "check", "--online", "--config", pinned("tips", tips...)).wantExit(t, 0)
}

// TestE2ESimLogsEvents: `keeper sim` logs each scenario event as it applies it.
func TestE2ESimLogsEvents(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	s.until(t, 11)
	s.state(t) // a request after the clock moved applies the events due
	log := s.proc.stderr.String()
	for _, want := range []string{"Scenario event", "at=10s", "oracle map[SOL:110]"} {
		if !strings.Contains(log, want) {
			t.Errorf("keeper sim's log lacks %q:\n%s", want, log)
		}
	}
}
