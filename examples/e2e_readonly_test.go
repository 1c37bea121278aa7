package examples_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// walletJSON is `keeper wallet --json`.
type walletJSON struct {
	Wallet   string `json:"wallet"`
	Lamports uint64 `json:"lamports"`
	Loans    []struct {
		Address string  `json:"address"`
		Health  float64 `json:"health"`
	} `json:"loans"`
	Positions []struct {
		PositionMint string `json:"position_mint"`
		InRange      bool   `json:"in_range"`
		OwedKnown    bool   `json:"owed_known"`
		FeesOwed0    uint64 `json:"fees_owed_0"`
		FeesOwed1    uint64 `json:"fees_owed_1"`
	} `json:"positions"`
	Withdrawals []struct {
		RequestID string `json:"request_id"`
		Filled    uint64 `json:"filled"`
		Requested uint64 `json:"requested"`
	} `json:"withdrawals"`
}

// TestE2EReadOnlyCommands runs the commands that only read with a public
// key and no key file: `wallet --json` matches the simulator's state; plan
// and check work; history works without the notifiers' secrets, which run
// needs.
func TestE2EReadOnlyCommands(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 20) // pos-a out of range, a withdrawal filled
	cfg := w.configEdited(t, "readonly", []string{autoRepay, claimWithdrawals}, func(c map[string]any) {
		section(c, "signer")["keypair"] = filepath.Join(w.dir, "no-such-key.json")
		c["notifiers"] = []map[string]any{{"name": "ops", "type": "webhook", "url": "${KEEPER_TEST_UNSET_HOOK}"}}
	})
	st := s.state(t)
	out := runKeeper(t, w.dir, "wallet", "--config", cfg, "--wallet", s.wallet, "--json").wantExit(t, 0).stdout
	var rep walletJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("wallet --json: %v\n%s", err, out)
	}
	if rep.Wallet != s.wallet || rep.Lamports != st.Wallet.Lamports {
		t.Errorf("wallet %s with %d lamports, want %s with %d", rep.Wallet, rep.Lamports, s.wallet, st.Wallet.Lamports)
	}
	loans := map[string]float64{}
	for _, l := range rep.Loans {
		loans[l.Address] = l.Health
	}
	for name, l := range st.Loans {
		h, listed := loans[l.Address]
		switch {
		case l.Borrower == s.wallet && l.Active && !listed:
			t.Errorf("loan %s (%s) missing from the wallet", name, l.Address)
		case l.Borrower != s.wallet && listed:
			t.Errorf("loan %s of %s listed for the wallet", name, l.Borrower)
		case listed && l.Active && math.Abs(h-l.Health) > 1e-6:
			t.Errorf("loan %s health %v, the simulator says %v", name, h, l.Health)
		}
	}
	positions := map[string]bool{}
	for _, p := range rep.Positions {
		positions[p.PositionMint] = true
		for name, sp := range st.Positions {
			if sp.Mint == p.PositionMint && (sp.InRange != p.InRange || !p.OwedKnown || sp.FeesOwed0 != p.FeesOwed0 || sp.FeesOwed1 != p.FeesOwed1) {
				t.Errorf("position %s: in range %v, owed %d/%d; the simulator says %v, %d/%d", name, p.InRange,
					p.FeesOwed0, p.FeesOwed1, sp.InRange, sp.FeesOwed0, sp.FeesOwed1)
			}
		}
	}
	if len(positions) == 0 {
		t.Error("the wallet shows no CLMM position")
	}
	requests := map[string]bool{}
	for _, q := range rep.Withdrawals {
		requests[q.RequestID] = true
	}
	for name, r := range st.Requests {
		if r.Wallet == s.wallet && r.Open && !requests[r.Address] {
			t.Errorf("withdrawal request %s missing from the wallet", name)
		}
	}

	var raw any
	_ = json.Unmarshal([]byte(out), &raw)
	checkSnakeKeys(t, raw, "wallet")
	table := runKeeper(t, w.dir, "wallet", "--config", cfg, "--wallet", s.wallet).wantExit(t, 0).stdout
	for _, want := range []string{"Wallet " + s.wallet, "LOANS", "POSITIONS", "WITHDRAWALS"} {
		if !strings.Contains(table, want) {
			t.Errorf("wallet table lacks %q:\n%s", want, table)
		}
	}
	runKeeper(t, w.dir, "plan", "--config", cfg, "--wallet", s.wallet).wantExit(t, 0)
	// check checks the notifiers too: with their secret, and the public key only.
	r, err := runUntilDoneWith(t.Context(), procOptions{env: []string{"KEEPER_TEST_UNSET_HOOK=http://127.0.0.1:9/hook"}},
		w.dir, "check", "--config", cfg, "--wallet", s.wallet)
	if err != nil {
		t.Fatal(err)
	}
	r.wantExit(t, 0)
	runKeeper(t, w.dir, "history", "--config", cfg).wantExit(t, 0)
	if r := runKeeper(t, w.dir, "run", "--once", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "KEEPER_TEST_UNSET_HOOK") {
		t.Errorf("run with an unset notifier URL: exit %d, want 2 naming the variable; stderr:\n%s", r.code, r.stderr)
	}
}
