package examples_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/softhsm"
)

// TestE2EPKCS11Token runs the real binary with the operator's key only in a PKCS#11 token (SoftHSM
// 2, the key made by pkcs11-tool as docs/hardware-keys.md says): `keeper pubkey` prints the
// token's key, `check --online` finds the token answering with the wallet's key (and fails for
// another wallet), and `run --once` lands vault upkeep against `keeper sim`, every signature made
// by the token and verified by the simulated chain. Then the token is taken away under a running
// daemon: the repay that falls due is refused and nothing is signed. The PIN never shows in any
// output, log, journal record or /status.
func TestE2EPKCS11Token(t *testing.T) {
	needBinary(t)
	tk := softhsm.New(t) // sets SOFTHSM2_CONF for the keeper processes, so not parallel
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{0x4b, 0x01})
	t.Setenv("KEEPER_TEST_PIN", tk.PIN)
	wallet := solana.PublicKeyFromBytes(key.Public).String()
	s := startSimWith(t, "--manual-clock", "--wallet", wallet)
	if s.wallet != wallet {
		t.Fatalf("keeper sim serves wallet %s, want the token's %s", s.wallet, wallet)
	}
	w := newWorkspace(t, s)
	tokenConfig := func(name, pubkey string, policies []string, edit func(map[string]any)) string {
		return w.configEdited(t, name, policies, func(c map[string]any) {
			sg := section(c, "signer")
			delete(sg, "keypair")
			sg["pkcs11"] = map[string]any{"module": tk.Module, "token_label": tk.Label, "key_label": key.Label, "key_id": "4b01",
				"pin": "${KEEPER_TEST_PIN}", "timeout": "10s"}
			if pubkey != "" {
				sg["pubkey"] = pubkey
			}
			if edit != nil {
				edit(c)
			}
		})
	}
	var printed []string // every output, searched for the PIN at the end
	cfg := tokenConfig("token", "", []string{vaultUpkeep}, nil)
	r := runKeeper(t, w.dir, "pubkey", "--config", cfg).wantExit(t, 0)
	if got := strings.TrimSpace(r.stdout); got != wallet {
		t.Errorf("keeper pubkey printed %q, want the token's key %s", got, wallet)
	}
	printed = append(printed, r.stdout, runKeeper(t, w.dir, "check", "--config", cfg).wantExit(t, 0).stderr)
	printed = append(printed, runKeeper(t, w.dir, "check", "--online", "--config", cfg).wantExit(t, 0).stderr)

	other := "FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo"
	wrong := tokenConfig("other-wallet", other, []string{vaultUpkeep}, nil)
	r = runKeeper(t, w.dir, "check", "--online", "--config", wrong).wantExit(t, 1)
	if !strings.Contains(r.stderr, "signer.pubkey "+other+" is not the public key of the token's key ("+wallet+")") {
		t.Errorf("check --online with another wallet: %s", r.stderr)
	}
	r2 := runKeeper(t, w.dir, "pubkey", "--config", wrong).wantExit(t, 1)
	if strings.TrimSpace(r2.stdout) != wallet {
		t.Errorf("keeper pubkey with another signer.pubkey printed %q, want the token's key", r2.stdout)
	}
	printed = append(printed, r.stderr, r2.stderr)

	s.until(t, 5) // the best other quote fell: vault upkeep acts
	r = w.once(t, tokenConfig("upkeep", wallet, []string{vaultUpkeep}, nil))
	vault := s.address(t, "vault", "alpha-vault")
	w.landedOnce(t, w.last, s.state(t), map[string]string{"track-best-quote": vault, "sweep-idle-principal": vault})
	printed = append(printed, r.stderr)

	printed = append(printed, tokenGoneUnderDaemon(t, w, tk, tokenConfig("daemon", wallet, []string{autoRepay}, func(c map[string]any) {
		section(c, "http")["listen"] = "127.0.0.1:0"
	}))...)
	for _, out := range printed {
		if strings.Contains(out, tk.PIN) {
			t.Errorf("keeper printed the PIN:\n%s", out)
		}
	}
}

// tokenGoneUnderDaemon starts the daemon with auto-repay while no loan needs it, deletes the token,
// lets SOL fall (10 s), and checks that the repay is refused (rule sign-error, the token named
// absent) with nothing signed, and that the commands that only read still work without the token.
// It returns the daemon's log, its /status and those commands' outputs.
func tokenGoneUnderDaemon(t *testing.T, w *workspace, tk *softhsm.Token, cfg string) []string {
	t.Helper()
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	d.waitStarted(t)
	tk.Delete(t)
	refused := d.stderr.lineContaining(`"msg":"Refused to sign"`)
	w.sim.until(t, 10)
	select {
	case <-refused:
	case <-d.exited:
		t.Fatalf("keeper run exited (%v); stderr:\n%s", d.err, d.stderr.String())
	case <-time.After(procTimeout):
		t.Fatalf("no refusal within %s; stderr:\n%s", procTimeout, d.stderr.String())
	}
	status := getStatus(t, d)
	if code := d.stop(t); code != 0 {
		t.Errorf("keeper run exited %d after an interrupt; stderr:\n%s", code, d.stderr.String())
	}
	acts := w.newActions(t, cfg)
	if len(acts) != 1 || acts[0].State != "refused" || acts[0].Rule != "sign-error" || len(acts[0].Signatures) != 0 ||
		!strings.Contains(acts[0].Reason+d.stderr.String(), "token not present") {
		t.Errorf("with the token gone: %+v, want one repay refused for sign-error, the token named absent; stderr:\n%s", acts, d.stderr.String())
	}
	w.signedExactly(t, w.sim.state(t), nil)
	// With signer.pubkey set, the commands that only read need no token.
	out := []string{d.stderr.String(), status}
	for _, cmd := range []string{"history", "wallet", "plan", "check"} {
		r := runKeeper(t, w.dir, cmd, "--config", cfg).wantExit(t, 0)
		out = append(out, r.stdout, r.stderr)
	}
	return out
}

// getStatus returns the body of the daemon's /status, at the address its start line logged.
func getStatus(t *testing.T, d *daemon) string {
	t.Helper()
	var started struct {
		HTTP string `json:"http"`
	}
	for line := range strings.Lines(d.stderr.String()) {
		if strings.Contains(line, `"msg":"keeper started"`) {
			_ = json.Unmarshal([]byte(line), &started)
		}
	}
	resp, err := http.Get("http://" + started.HTTP + "/status")
	if err != nil {
		t.Fatalf("GET /status: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /status: %s, %v", resp.Status, err)
	}
	return string(b)
}
