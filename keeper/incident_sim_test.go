package keeper

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// incidentAlert is notifyRepay's health alert alone.
const incidentAlert = `policies:
  - name: health-alert
    kind: alert
    schedule: "@every 5s"
    select: { target: loans, loans: [%s] }
    when: loan.health < 0.25
    params: { severity: critical, message: "loan health under 0.25" }
    notify: { to: [hook] }
`

// TestAlertIncidentOutlivesTheProcess runs the health alert as a cron
// deployment would: one `run --once` process after another on one journal.
// The first pages when the loan's health falls; the next, while it stays
// low, does not page again; the first run after SOL recovers pages the
// resolution once, and the run after that says nothing.
func TestAlertIncidentOutlivesTheProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, watchedLoan, "  - at: 30s\n    oracle: {SOL: 160}\n")})
		w.writePolicy(t, "p.yaml", fmt.Sprintf(incidentAlert, w.address(t, ids.KindLoan, "watch-me")))
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
		pass := func(at time.Duration, want ...notify.Event) {
			t.Helper()
			w.advance(t, at-time.Since(w.sim.StartTime()))
			k := w.open(t, dsn)
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("pass at %s: RunOnce = %v", at, err)
			}
			if err := k.Close(); err != nil {
				t.Fatal(err)
			}
			var got []notify.Event
			for _, m := range w.hook.messages() {
				got = append(got, m.Event)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("after the pass at %s the webhook heard %v, want %v", at, got, want)
			}
		}
		pass(15*time.Second, notify.Alert)
		pass(20*time.Second, notify.Alert)
		pass(35*time.Second, notify.Alert, notify.Resolved)
		pass(40*time.Second, notify.Alert, notify.Resolved)
		msgs := w.hook.messages()
		alert, res := msgs[0], msgs[1]
		health, err := strconv.ParseFloat(strings.TrimPrefix(res.Value, "loan.health "), 64)
		if err != nil || health < 0.25 || !strings.Contains(res.Text(), "resolved: loan.health < 0.25 no longer holds") ||
			!strings.Contains(res.Text(), "; now loan.health ") {
			t.Errorf("the resolution says %q (value %q); want resolved and the loan's health now, at least 0.25", res.Text(), res.Value)
		}
		if alert.Incident == "" || res.Incident != alert.Incident {
			t.Errorf("alert incident %q, resolution %q: want one id", alert.Incident, res.Incident)
		}
	})
}
