package examples_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// alertPostsWebhook runs the daemon with an alert policy whose notifier is a webhook, once
// alpha-vault's APY fell (its external yield at 30 s, its JTO rewards after 30 s), until the
// webhook hears of alpha-vault. While the rewards run, JTO's Pyth price counts them and the total
// (about 5.2 % after the yield fell) is above the floor.
func alertPostsWebhook(t *testing.T, w *workspace) {
	hook, bodies := webhookReceiver(t)
	cfg := w.config(t, "alert", []string{"testdata/e2e/alert-webhook.yaml"},
		map[string]any{"name": "hook", "type": "webhook", "url": hook})
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	vault := w.sim.address(t, "vault", "alpha-vault")
	msg, seen := waitAlert(t, d, bodies, vault)
	if code := d.stop(t); code != 0 {
		t.Errorf("keeper run exited %d after an interrupt, want 0; stderr:\n%s", code, d.stderr.String())
	}
	if msg.Event != "alert" || msg.Policy != "vault-apy-floor-webhook" || msg.Kind != "alert" || msg.Severity != "warning" ||
		!strings.Contains(msg.Reason, "vault "+vault+" total APY") || !strings.Contains(msg.Reason, "is under 5%") {
		t.Errorf("webhook body for alpha-vault: %+v (bodies seen: %d)", msg, seen)
	}
	// The incident is in the journal: a restarted keeper, or each pass of a
	// cron deployment, does not page again while it stays open.
	for pass := range 2 {
		w.once(t, cfg)
		select {
		case b := <-bodies:
			t.Errorf("run --once pass %d paged again for an open incident: %s", pass+1, b)
		default:
		}
	}
	w.nothingNew(t, cfg, w.sim.state(t))
	incidentInHistory(t, w.dir, cfg, vault)
}

// incidentInHistory checks that `keeper history` lists the open incident of
// target beside the actions, in the table and as JSON.
func incidentInHistory(t *testing.T, dir, cfg, target string) {
	t.Helper()
	out := runKeeper(t, dir, "history", "--config", cfg).wantExit(t, 0).stdout
	if !strings.Contains(out, "ALERT") || !strings.Contains(out, target) || !strings.Contains(out, "open") {
		t.Errorf("history lacks the open incident of %s:\n%s", target, out)
	}
	js := runKeeper(t, dir, "history", "--config", cfg, "--json").wantExit(t, 0).stdout
	found := false
	for line := range strings.Lines(js) {
		var rec struct {
			Incident int64  `json:"incident"`
			Target   string `json:"target"`
			Resolved string `json:"resolved_at"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Incident != 0 && rec.Target == target && rec.Resolved == "" {
			found = true
		}
	}
	if !found {
		t.Errorf("history --json lacks the open incident of %s:\n%s", target, js)
	}
}

// webhookMessage is the generic webhook's JSON body.
type webhookMessage struct {
	Event    string `json:"event"`
	Policy   string `json:"policy"`
	Kind     string `json:"kind"`
	Target   string `json:"target"`
	Severity string `json:"severity"`
	Reason   string `json:"reason"`
}

// waitAlert returns the first webhook body about target, and how many bodies arrived in all.
func waitAlert(t *testing.T, d *daemon, bodies <-chan []byte, target string) (webhookMessage, int) {
	t.Helper()
	deadline := time.After(procTimeout)
	for n := 1; n <= cap(bodies); n++ {
		select {
		case b := <-bodies:
			var m webhookMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("webhook body %s: %v", b, err)
			}
			if m.Target == target {
				return m, n
			}
		case <-d.exited:
			t.Fatalf("keeper run exited (%v) before the webhook heard of %s; stderr:\n%s", d.err, target, d.stderr.String())
		case <-deadline:
			t.Fatalf("no webhook body about %s within %s; stderr:\n%s", target, procTimeout, d.stderr.String())
		}
	}
	t.Fatalf("%d webhook bodies, none about %s", cap(bodies), target)
	return webhookMessage{}, 0
}
