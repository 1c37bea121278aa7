package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pdEvent is what the test reads of a PagerDuty Events API v2 event.
type pdEvent struct {
	RoutingKey  string `json:"routing_key"`
	EventAction string `json:"event_action"`
	DedupKey    string `json:"dedup_key"`
	Payload     *struct {
		Summary  string `json:"summary"`
		Severity string `json:"severity"`
		Source   string `json:"source"`
	} `json:"payload"`
}

// healthAlertPD alerts on repay-me's health through PagerDuty.
const healthAlertPD = `policies:
  - name: repay-me-health
    kind: alert
    schedule: "@every 5s"
    select: { target: loans }
    when: loan.health < 0.2
    params: { severity: critical, message: "loan {{.loan.address}} health under 0.2" }
    notify: { to: [pd] }
`

// TestE2EPagerDutyIncident runs `run --once` passes as a cron deployment
// would, with a PagerDuty notifier posting to a local receiver: the pass
// that finds repay-me's health low triggers one incident; the repay lifts
// it; the next alert pass resolves the incident with the same dedup key.
func TestE2EPagerDutyIncident(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 12) // SOL fell at 10 s: repay-me's health is 0.14
	hook, bodies := webhookReceiver(t)
	alertFile := filepath.Join(t.TempDir(), "pd.yaml")
	if err := os.WriteFile(alertFile, []byte(healthAlertPD), 0o644); err != nil {
		t.Fatal(err)
	}
	pd := map[string]any{"name": "pd", "type": "pagerduty", "url": hook, "routing_key": "R0UTINGKEY0000000000000000000000"}
	alerts := w.config(t, "pd-alert", []string{alertFile}, pd)
	next := func() (pdEvent, bool) {
		select {
		case b := <-bodies:
			var ev pdEvent
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatalf("pagerduty body %s: %v", b, err)
			}
			return ev, true
		default:
			return pdEvent{}, false
		}
	}

	w.once(t, alerts)
	loan := w.sim.state(t).Loans["repay-me"].Address
	trig, ok := next()
	if !ok || trig.EventAction != "trigger" || trig.DedupKey != "keeper/repay-me-health/"+loan || trig.RoutingKey != pd["routing_key"] ||
		trig.Payload == nil || trig.Payload.Severity != "critical" || trig.Payload.Source != "keeper" {
		t.Fatalf("first pass sent %+v (%v), want a critical trigger for %s", trig, ok, loan)
	}
	w.once(t, alerts)
	if ev, ok := next(); ok {
		t.Errorf("a second pass sent %+v for the open incident", ev)
	}
	w.once(t, w.config(t, "pd-repay", []string{autoRepay}))
	w.once(t, alerts)
	res, ok := next()
	if !ok || res.EventAction != "resolve" || res.DedupKey != trig.DedupKey || res.Payload == nil ||
		!strings.Contains(res.Payload.Summary, "; now loan.health ") {
		t.Errorf("after the repay the pass sent %+v (%v), want the incident resolved", res, ok)
	}
	if ev, ok := next(); ok {
		t.Errorf("unexpected further event %+v", ev)
	}
}
