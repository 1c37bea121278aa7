package keeper

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// TestDryRunPostsNothingAndTheRealRunAnnounces runs the health alert as
// cron passes on one journal: a dry pass while the loan's health is low
// posts nothing and journals no incident; the next real pass opens the
// incident and announces it; the pass after SOL recovers announces the
// resolution, with the same incident id, saying "resolved" and the
// condition that no longer holds.
func TestDryRunPostsNothingAndTheRealRunAnnounces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, watchedLoan, "  - at: 30s\n    oracle: {SOL: 160}\n")})
		w.writePolicy(t, "p.yaml", fmt.Sprintf(incidentAlert, w.address(t, ids.KindLoan, "watch-me")))
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
		pass := func(at time.Duration, dry bool) {
			t.Helper()
			w.advance(t, at-time.Since(w.sim.StartTime()))
			k := w.open(t, dsn)
			k.dryRunAll = dry
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("pass at %s: RunOnce = %v", at, err)
			}
			if err := k.Close(); err != nil {
				t.Fatal(err)
			}
		}
		pass(15*time.Second, true)
		if got := w.hook.messages(); len(got) != 0 {
			t.Fatalf("the dry pass posted %+v; a dry run posts nothing unless asked", got)
		}
		pass(20*time.Second, false)
		pass(35*time.Second, false)
		got := w.hook.messages()
		if len(got) != 2 || got[0].Event != notify.Alert || got[1].Event != notify.Resolved {
			t.Fatalf("the real passes posted %+v, want the alert the dry pass saw, then its resolution", got)
		}
		if got[0].Incident == "" || got[0].Incident != got[1].Incident {
			t.Errorf("incident ids %q and %q: want one id on the alert and its resolution", got[0].Incident, got[1].Incident)
		}
		if r := got[1].Reason; !strings.HasPrefix(r, "resolved: loan.health < 0.25 no longer holds") || strings.Contains(r, "under 0.25") {
			t.Errorf("resolution reason %q: want it to say resolved and what no longer holds, not the old text", r)
		}
		if got[0].DryRun || got[1].DryRun {
			t.Errorf("real passes posted messages marked dry run: %+v", got)
		}
	})
}

// TestDryRunIncidentsCarryAnID: a dry run asked to post (--notify-dry-run)
// gives the incident it opens in memory an id, which its alert and its
// resolution carry alike, and the resolution says the health now.
func TestDryRunIncidentsCarryAnID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{scenario: scenarioWith(t, watchedLoan, "  - at: 30s\n    oracle: {SOL: 160}\n")})
		w.writePolicy(t, "p.yaml", fmt.Sprintf(incidentAlert, w.address(t, ids.KindLoan, "watch-me")))
		k := w.open(t, "")
		k.dryRunAll = true
		k.notifier = w.notifier(t, k.Keeper, true)
		for _, at := range []time.Duration{15 * time.Second, 35 * time.Second} {
			w.advance(t, at-time.Since(w.sim.StartTime()))
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("pass at %s: RunOnce = %v", at, err)
			}
		}
		got := w.hook.messages()
		if len(got) != 2 || got[0].Event != notify.Alert || got[1].Event != notify.Resolved || !got[0].DryRun || !got[1].DryRun {
			t.Fatalf("the dry passes posted %+v, want a dry alert and its dry resolution", got)
		}
		if got[0].Incident != "dry-1" || got[1].Incident != "dry-1" || !strings.HasPrefix(got[1].Value, "loan.health ") {
			t.Errorf("incidents %q and %q, value %q: want one dry id and the health now", got[0].Incident, got[1].Incident, got[1].Value)
		}
	})
}
