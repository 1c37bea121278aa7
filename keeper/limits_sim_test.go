package keeper

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
)

// cappedRepayPolicy is a repay policy for the wallet's loans against SOL
// (not its CLMM collateral loans) with a cooldown, a per-run cap and a daily
// cap on the USDC it spends (format with the SOL mint, the per-run cap, the
// USDC mint and the daily cap).
const cappedRepayPolicy = `policies:
  - name: capped-repay
    kind: repay
    schedule: "@every 5s"
    select:
      collateral_mints: [%s]
    params:
      trigger_health: 0.2
      target_health: 0.3
      min_amount: 1000000
      max_amount: 500000000
    limits:
      cooldown: 10m
      max_actions_per_run: %d
      daily_caps:
        %s: %d
`

// scenarioWith is the default scenario with more loans and events.
func scenarioWith(t *testing.T, loans, events string) *scenario.Scenario {
	t.Helper()
	text := string(sim.DefaultScenarioYAML())
	if !strings.Contains(text, "\nloans:\n") || !strings.HasSuffix(strings.TrimSpace(text), "oracle: {JITOSOL: 90}") {
		t.Fatal("the default scenario changed shape: loans must be a top-level list and events the last one")
	}
	text = strings.Replace(text, "\nloans:\n", "\nloans:\n"+loans, 1) + events
	sc, err := sim.ParseScenario("test_scenario.yaml", []byte(text))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return sc
}

// solFalls are oracle events that take SOL lower after the default ones.
const solFalls = `  - at: 2m
    oracle: {SOL: 90}
  - at: 12m
    oracle: {SOL: 70}
`

// TestCooldownAndDailyCapOnSim follows loan repay-me through three price
// falls: the first is repaid; the second is held back by the 10-minute
// cooldown and repaid once it has passed; the third is repaid only up to what
// the 300 USDC daily cap leaves, and after the next cooldown nothing more is
// repaid that day, however low the health; on the next UTC day it is.
//
// It runs twice: with the wallet's few loans on one page, and with 150 more
// healthy loans of the wallet read in pages of 20, each page sieved as it
// comes, where every limit must hold the same.
func TestCooldownAndDailyCapOnSim(t *testing.T) {
	for _, mode := range []struct{ name, loans, config string }{
		{"one page", "", ""},
		{"many pages", strings.ReplaceAll(manyLoans("more", "$wallet", 150), `principal: "500"`, `principal: "100"`), pageSizeConfig(20)},
	} {
		t.Run(mode.name, func(t *testing.T) { cooldownAndDailyCap(t, mode.loans, mode.config) })
	}
}

// pageSizeConfig is the simulator's config with market.page_size at size.
func pageSizeConfig(size int) string {
	return strings.Replace(simConfigYAML, "  earn_program_id:", fmt.Sprintf("  page_size: %d\n  earn_program_id:", size), 1)
}

func cooldownAndDailyCap(t *testing.T, loans, config string) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, loans, solFalls), configYAML: config})
		sol, usdc := w.address(t, ids.KindMint, "SOL").String(), w.usdc(t).String()
		const dailyCap = 300_000_000
		w.writePolicy(t, "capped.yaml", fmt.Sprintf(cappedRepayPolicy, sol, 5, usdc, dailyCap))
		k := w.open(t, "")
		loan := w.address(t, ids.KindLoan, "repay-me").String()
		start := time.Now()
		steps := []struct {
			at      time.Duration
			actions int  // journaled so far
			low     bool // health still under the trigger after the run
			why     string
		}{
			{15 * time.Second, 1, false, "SOL at 110: repaid"},
			{3 * time.Minute, 1, true, "SOL at 90 within the cooldown: held back"},
			{10*time.Minute + 20*time.Second, 2, false, "cooldown over: repaid"},
			{23 * time.Minute, 3, true, "SOL at 70, cooldown over: repaid up to the daily cap"},
			{34 * time.Minute, 3, true, "cooldown over, daily cap spent: held back"},
			{24*time.Hour + time.Minute, 4, false, "a new UTC day: repaid"},
		}
		for _, s := range steps {
			w.advance(t, time.Until(start.Add(s.at)))
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("%s: RunOnce: %v", s.why, err)
			}
			acts := k.actionsOf(t, "capped-repay")
			if len(acts) != s.actions {
				t.Fatalf("%s: %d actions, want %d", s.why, len(acts), s.actions)
			}
			for _, a := range acts {
				if a.State != journal.StateLanded || a.Target != loan {
					t.Errorf("%s: action %s on %s is %s (%s)", s.why, action.ShortID(a.ID), a.Target, a.State, a.Detail)
				}
			}
			if h := loanHealth(t, w, "repay-me"); (h < 0.2) != s.low {
				t.Errorf("%s: health %.3f after the run", s.why, h)
			}
		}
		var firstDay uint64
		for _, a := range k.actionsOf(t, "capped-repay")[:3] {
			firstDay += a.Amount
		}
		if firstDay != dailyCap {
			t.Errorf("spent %d USDC units on the first day, want exactly the cap %d", firstDay, dailyCap)
		}
		if n := len(w.landed.paidBy(w.wallet())); n != 4 {
			t.Errorf("%d transactions landed, want the 4 repays", n)
		}
	})
}

// twoMoreLoans are copies of repay-me that SOL's fall makes unhealthy too.
const twoMoreLoans = `  - name: repay-me-2
    borrower: $wallet
    started: "-10d"
    collateral:
      - {mint: SOL, amount: "10"}
    ledgers:
      - {strategy: beta, principal: "800", term: 30d}
  - name: repay-me-3
    borrower: $wallet
    started: "-10d"
    collateral:
      - {mint: SOL, amount: "10"}
    ledgers:
      - {strategy: beta, principal: "800", term: 30d}
`

// TestPerRunCapOnSim: three loans need a repay and the policy may act twice
// per run, so the first run repays two and the next one the third.
func TestPerRunCapOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, twoMoreLoans, "")})
		sol, usdc := w.address(t, ids.KindMint, "SOL").String(), w.usdc(t).String()
		w.writePolicy(t, "capped.yaml", fmt.Sprintf(cappedRepayPolicy, sol, 2, usdc, 1_000_000_000))
		k := w.open(t, "")
		w.advance(t, 15*time.Second)
		for i, want := range []int{2, 3, 3} {
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("run %d: %v", i+1, err)
			}
			if got := len(k.actionsOf(t, "capped-repay")); got != want {
				t.Fatalf("after run %d: %d actions, want %d", i+1, got, want)
			}
		}
		for _, name := range []string{"repay-me", "repay-me-2", "repay-me-3"} {
			if h := loanHealth(t, w, name); h < 0.299 {
				t.Errorf("loan %s health %.3f, want repaid to 0.3", name, h)
			}
		}
	})
}
