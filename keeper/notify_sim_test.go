package keeper

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// Policies posting to the test webhook ("hook" in simConfigYAML).
const (
	notifyRepay = `policies:
  - name: repay
    kind: repay
    schedule: "@every 5s"
    select: { loans: [%[1]s] }
    params: { trigger_health: 0.2, target_health: 0.3, min_amount: 1000000, max_amount: 500000000 }
    notify: { to: [hook], on: [landed, failed, refused] }
  - name: health-alert
    kind: alert
    schedule: "@every 5s"
    select: { target: loans, loans: [%[1]s] }
    when: loan.health < 0.25
    params: { severity: critical, message: "loan health {{printf \"%%.3f\" .loan.health}} under 0.25" }
    notify: { to: [hook] }
`
	notifyClaimFees = `policies:
  - name: claim-fees
    kind: claim-fees
    schedule: "@every 5s"
    params: { min_fees_1: 10000000 }
    notify: { to: [hook] }
`
	notifySweep = `policies:
  - name: sweep
    kind: strategy-withdraw
    schedule: "@every 5s"
    params: { buffer: 20000000000, min_amount: 1000000000 }
    notify: { to: [hook] }
`
)

// watchedLoan is a loan whose health SOL's fall to 110 at 10 s takes to
// about 0.22, under the alert's 0.25 but above the repay's trigger 0.2, and
// a fall to 100 at 40 s takes to about 0.14, which the repay lifts to 0.3.
const (
	watchedLoan = `  - name: watch-me
    borrower: $wallet
    started: "-10d"
    collateral:
      - {mint: SOL, amount: "10"}
    ledgers:
      - {strategy: beta, principal: "727", term: 30d}
`
	solTo100 = `  - at: 40s
    oracle: {SOL: 100}
`
)

// wantNote is a notification the webhook must receive.
type wantNote struct {
	event  notify.Event
	policy string
	target string // a scenario name of the kind below
	kind   string
	detail string // a substring of Detail
}

// TestNotificationsOnSim runs the daemon against the simulator and checks
// the messages a webhook receives: a repay landed; an alert opened when the
// loan's health fell and resolved once the repay lifted it (one message
// each, not one per tick); a hostile build refused by the guard; a strategy
// withdrawal that failed on chain because the idle principal was gone by
// the time it landed. Every message carries the plan's reason.
func TestNotificationsOnSim(t *testing.T) {
	cases := []struct {
		name          string
		loans, events string // added to the default scenario
		setup         func(t *testing.T, w *simWorld)
		want          []wantNote
	}{
		{"landed+alert+resolved", watchedLoan, solTo100, func(t *testing.T, w *simWorld) {
			w.writePolicy(t, "p.yaml", fmt.Sprintf(notifyRepay, w.address(t, ids.KindLoan, "watch-me")))
		}, []wantNote{
			{notify.Alert, "health-alert", "watch-me", ids.KindLoan, ""},
			{notify.Landed, "repay", "watch-me", ids.KindLoan, ""},
			{notify.Resolved, "health-alert", "watch-me", ids.KindLoan, ""},
		}},
		{"refused", "", "", func(t *testing.T, w *simWorld) {
			w.writePolicy(t, "p.yaml", notifyClaimFees)
			w.net.before = func(c netCall, _ []byte) {
				if strings.HasSuffix(c.Path, "/claim_fees") {
					_ = w.sim.Faults().InjectHostile(faults.HostileUnknownProgram)
				}
			}
		}, []wantNote{{notify.Refused, "claim-fees", "pos-b", ids.KindPosition, "program-not-allowed"}}},
		{"failed", "", "", func(t *testing.T, w *simWorld) {
			w.writePolicy(t, "p.yaml", notifySweep)
			strategy, usdc := w.address(t, ids.KindStrategy, "alpha"), w.usdc(t)
			w.net.before = func(c netCall, _ []byte) {
				if c.Method == "sendTransaction" {
					drainTokens(t, w.sim.Chain(), strategy, usdc)
				}
			}
		}, []wantNote{{notify.Failed, "sweep", "alpha-vault", ids.KindVault, "chain-failed"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var o simOptions
				if tc.loans != "" || tc.events != "" {
					o.scenario = scenarioWith(t, tc.loans, tc.events)
				}
				w := newSimWorld(t, o)
				tc.setup(t, w)
				k := w.open(t, "")
				r := k.start(t)
				time.Sleep(62 * time.Second)
				synctest.Wait()
				if err := r.stop(); err != nil {
					t.Errorf("Run = %v", err)
				}
				checkNotes(t, w, tc.want)
			})
		})
	}
}

// checkNotes asserts the webhook received exactly the messages want, each
// once. Their order is not checked: an alert that resolves because an action
// landed may see the landing before keeper has confirmed it.
func checkNotes(t *testing.T, w *simWorld, want []wantNote) {
	t.Helper()
	got := w.hook.messages()
	if len(got) != len(want) {
		t.Errorf("webhook received %d messages, want %d: %+v", len(got), len(want), got)
	}
	for _, e := range want {
		target := w.address(t, e.kind, e.target).String()
		i := slices.IndexFunc(got, func(g notify.Message) bool {
			return g.Event == e.event && g.Policy == e.policy && g.Target == target
		})
		if i < 0 {
			t.Errorf("no %s message from %s on %s (%s) in %+v", e.event, e.policy, e.target, target, got)
			continue
		}
		g := got[i]
		if g.Reason == "" || !strings.Contains(g.Detail, e.detail) {
			t.Errorf("%s message: reason %q detail %q, want a reason and %q in the detail", g.Event, g.Reason, g.Detail, e.detail)
		}
		if actionEvent := g.Event != notify.Alert && g.Event != notify.Resolved; actionEvent == (g.ActionID == "") {
			t.Errorf("%s message: action ID %q", g.Event, g.ActionID)
		}
	}
}

// drainTokens empties owner's token account of mint on chain, as if someone
// had taken its balance between keeper's simulation and the landing.
func drainTokens(t *testing.T, c *chainsim.Chain, owner, mint solana.PublicKey) {
	ata, err := svm.AssociatedTokenAddress(owner, mint)
	if err != nil {
		t.Error(err)
		return
	}
	err = c.State.UpdateAccount(ata, func(a svm.Account, exists bool) (svm.Account, error) {
		if !exists || len(a.Data) < 72 {
			return a, errors.New("no token account")
		}
		binary.LittleEndian.PutUint64(a.Data[64:72], 0) // SPL token account amount
		return a, nil
	})
	if err != nil {
		t.Errorf("draining %s: %v", ata, err)
	}
}

// TestRunOnceDeliversNotifications: `keeper run --once` (RunOnce) must
// deliver the notifications of its run before it returns, as Run does; a
// crontab user otherwise never hears of a refused action.
func TestRunOnceDeliversNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.writePolicy(t, "p.yaml", notifyClaimFees)
		k := w.open(t, "")
		w.advance(t, 30*time.Second)
		if err := w.sim.Faults().InjectHostile(faults.HostileUnknownProgram); err != nil {
			t.Fatal(err)
		}
		if err := k.RunOnce(t.Context()); !isActionsFailed(err) {
			t.Fatalf("RunOnce = %v, want ErrActionsFailed", err)
		}
		synctest.Wait()
		checkNotes(t, w, []wantNote{{notify.Refused, "claim-fees", "pos-b", ids.KindPosition, "program-not-allowed"}})
	})
}
