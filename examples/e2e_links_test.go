package examples_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// webhookReceiver serves a webhook that keeps every body posted to it, and
// returns its URL and the bodies.
func webhookReceiver(t *testing.T) (string, <-chan []byte) {
	t.Helper()
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
	t.Cleanup(hook.Close)
	return hook.URL, bodies
}

// notifyingCopy writes a copy of the policy file at path in which every
// policy notifies as notify says (a flow mapping), and returns its path.
func notifyingCopy(t *testing.T, path, notify string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		out = append(out, line)
		if strings.HasPrefix(line, "    submit:") {
			out = append(out, "    notify: "+notify+"\n")
		}
	}
	copyPath := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(copyPath, []byte(strings.Join(out, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return copyPath
}

// landedMessage is the generic webhook's body of a landed action.
type landedMessage struct {
	Event       string   `json:"event"`
	Policy      string   `json:"policy"`
	Target      string   `json:"target"`
	ActionID    string   `json:"action_id"`
	Signatures  []string `json:"signatures"`
	Links       []string `json:"links"`
	Amount      string   `json:"amount"`
	FeeLamports uint64   `json:"fee_lamports"`
}

// landedMessageLinks checks the webhook heard of act's landing with its
// signatures, an explorer link to each on the simulator's cluster, the
// amount in USDC and the fee paid. `run --once` delivers before it exits.
func landedMessageLinks(t *testing.T, w *workspace, bodies <-chan []byte, act action) {
	t.Helper()
	var m landedMessage
	select {
	case b := <-bodies:
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("webhook body %s: %v", b, err)
		}
	default:
		t.Fatal("the webhook heard nothing of the landed repay")
	}
	if m.Event != "landed" || m.Policy != "auto-repay" || m.Target != act.Target || m.ActionID != act.ID {
		t.Errorf("webhook body %+v, want the landing of %s on %s", m, act.ID, act.Target)
	}
	if strings.Join(m.Signatures, " ") != strings.Join(act.Signatures, " ") || len(m.Links) != len(m.Signatures) {
		t.Errorf("webhook signatures %v and links %v, want the journaled %v with one link each", m.Signatures, m.Links, act.Signatures)
	}
	rpc, err := url.Parse(w.sim.urls.RPC)
	if err != nil {
		t.Fatal(err)
	}
	custom := url.QueryEscape(rpc.Scheme + "://" + rpc.Host)
	for i, sig := range m.Signatures {
		want := "https://explorer.solana.com/tx/" + sig + "?cluster=custom&customUrl=" + custom
		if i < len(m.Links) && m.Links[i] != want {
			t.Errorf("link %d = %s, want %s", i, m.Links[i], want)
		}
	}
	if want := fmt.Sprintf("%s USDC", usdcText(act.Amount)); m.Amount != want {
		t.Errorf("webhook amount %q, want %q", m.Amount, want)
	}
	if m.FeeLamports == 0 {
		t.Error("webhook says no fee was paid")
	}
}

// usdcText writes units of USDC (6 decimals) without trailing zeros.
func usdcText(units uint64) string {
	s := fmt.Sprintf("%d.%06d", units/1_000_000, units%1_000_000)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}
