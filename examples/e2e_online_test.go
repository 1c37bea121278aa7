package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ECheckOnlineServices runs `keeper check --online` against the simulator: it
// passes with the committed policies (trigger-repay's price trigger
// included), and names each problem when a policy caps a mint that does not
// exist, a trigger watches an account that does not exist or a "pool" that
// is a wallet, the wallet holds less than signer.min_lamports, and the
// market does not answer.
func TestE2ECheckOnlineServices(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	cfg := w.config(t, "online", []string{autoRepay, claimWithdrawals, "triggers/trigger-repay.yaml"})
	r := runKeeper(t, w.dir, "check", "--online", "--config", cfg).wantExit(t, 0)
	if !strings.Contains(r.stdout, "RPC, block engine and market answering") {
		t.Errorf("check --online printed %q", r.stdout)
	}

	ghost := "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU" // no account on the simulated chain
	policy := filepath.Join(t.TempDir(), "ghost.yaml")
	text := "policies:\n  - name: ghost\n    kind: alert\n    schedule: \"@every 1m\"\n    select: { target: loans, principal_mints: [" + ghost + "] }\n" +
		"    when: loan.health < 0.1\n    params: { message: low }\n" +
		"    triggers: { account: [{address: " + ghost + "}, {pool: " + s.wallet + "}] }\n"
	if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := w.configEdited(t, "online-bad", []string{policy}, func(c map[string]any) {
		section(c, "signer")["min_lamports"] = uint64(1_000_000_000_000)
		section(c, "market")["base_url"] = "http://127.0.0.1:9/v1"
		section(c, "journal")["dsn"] = "postgres://keeper:pg-secret-pw@127.0.0.1:9/keeper"
	})
	r = runKeeper(t, w.dir, "check", "--online", "--config", bad)
	if r.code != 1 {
		t.Errorf("check --online with problems: exit %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"policy ghost mint " + ghost + " does not exist on chain", "under signer.min_lamports",
		"market.base_url (http://127.0.0.1:9/v1) does not answer",
		"journal.dsn (postgres://keeper:<secret>@127.0.0.1:9/keeper) cannot serve as the shared journal: ",
		"policy ghost: the account " + ghost + " does not exist on chain: its trigger would never fire",
		"policy ghost: the pool " + s.wallet + " is not what its trigger reads (owner 11111111111111111111111111111111"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("check --online stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr+r.stdout, "pg-secret-pw") {
		t.Errorf("check --online shows the journal's password:\n%s", r.stderr)
	}
}
