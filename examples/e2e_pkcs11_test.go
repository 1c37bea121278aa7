package examples_test

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer/tokentest"
)

// TestE2EPKCS11Token runs the real binary with the operator's key only in a PKCS#11 token (SoftHSM
// 2, the key made by pkcs11-tool as docs/hardware-keys.md says): `keeper pubkey` prints the
// token's key, `check --online` finds the token answering with the wallet's key (and fails for
// another wallet), and `run --once` lands vault upkeep against `keeper sim`, every signature made
// by the token and verified by the simulated chain. The PIN never shows in any output.
func TestE2EPKCS11Token(t *testing.T) {
	needBinary(t)
	tk := tokentest.New(t) // sets SOFTHSM2_CONF for the keeper processes, so not parallel
	key := tk.AddKey(t, "EC:edwards25519", "wallet", []byte{0x4b, 0x01})
	t.Setenv("KEEPER_TEST_PIN", tk.PIN)
	wallet := solana.PublicKeyFromBytes(key.Public).String()
	s := startSimWith(t, "--manual-clock", "--wallet", wallet)
	if s.wallet != wallet {
		t.Fatalf("keeper sim serves wallet %s, want the token's %s", s.wallet, wallet)
	}
	w := newWorkspace(t, s)
	tokenConfig := func(name, pubkey string) string {
		return w.configEdited(t, name, []string{vaultUpkeep}, func(c map[string]any) {
			sg := section(c, "signer")
			delete(sg, "keypair")
			sg["pkcs11"] = map[string]any{"module": tk.Module, "token_label": tk.Label, "key_label": key.Label, "key_id": "4b01",
				"pin": "${KEEPER_TEST_PIN}", "timeout": "10s"}
			if pubkey != "" {
				sg["pubkey"] = pubkey
			}
		})
	}
	var outputs []result
	cfg := tokenConfig("token", "")
	r := runKeeper(t, w.dir, "pubkey", "--config", cfg).wantExit(t, 0)
	if got := strings.TrimSpace(r.stdout); got != wallet {
		t.Errorf("keeper pubkey printed %q, want the token's key %s", got, wallet)
	}
	outputs = append(outputs, r, runKeeper(t, w.dir, "check", "--config", cfg).wantExit(t, 0))
	outputs = append(outputs, runKeeper(t, w.dir, "check", "--online", "--config", cfg).wantExit(t, 0))

	other := "FpWLpfMQYMpJA5Y6dGEaff2dS8N3mHKfhe3s12LvVewo"
	wrong := tokenConfig("other-wallet", other)
	r = runKeeper(t, w.dir, "check", "--online", "--config", wrong).wantExit(t, 1)
	if !strings.Contains(r.stderr, "signer.pubkey "+other+" is not the public key of the token's key ("+wallet+")") {
		t.Errorf("check --online with another wallet: %s", r.stderr)
	}
	r2 := runKeeper(t, w.dir, "pubkey", "--config", wrong).wantExit(t, 1)
	if strings.TrimSpace(r2.stdout) != wallet {
		t.Errorf("keeper pubkey with another signer.pubkey printed %q, want the token's key", r2.stdout)
	}
	outputs = append(outputs, r, r2)

	s.until(t, 5) // the best other quote fell: vault upkeep acts
	outputs = append(outputs, w.once(t, tokenConfig("upkeep", wallet)))
	vault := s.address(t, "vault", "alpha-vault")
	w.landedOnce(t, w.last, s.state(t), map[string]string{"track-best-quote": vault, "sweep-idle-principal": vault})
	for _, r := range outputs {
		if strings.Contains(r.stdout+r.stderr, tk.PIN) {
			t.Errorf("keeper %s printed the PIN", strings.Join(r.args, " "))
		}
	}
}
