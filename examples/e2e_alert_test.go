package examples_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// alertPostsWebhook runs the daemon with an alert policy whose notifier is a webhook, once
// alpha-vault's APY fell (its external yield at 30 s, its JTO rewards after 30 s), until the
// webhook hears of alpha-vault. While the rewards run, JTO's Pyth price counts them and the total
// (about 5.2 % after the yield fell) is above the floor.
func alertPostsWebhook(t *testing.T, w *workspace) {
	bodies := make(chan []byte, 64)
	hook := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err == nil && r.Method == http.MethodPost {
			select {
			case bodies <- b:
			default:
			}
		}
		rw.WriteHeader(http.StatusNoContent)
	}))
	defer hook.Close()
	cfg := w.config(t, "alert", []string{"testdata/e2e/alert-webhook.yaml"},
		map[string]any{"name": "hook", "type": "webhook", "url": hook.URL})
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
	w.nothingNew(t, cfg, w.sim.state(t))
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
