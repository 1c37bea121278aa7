package examples_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestE2EOpsOnPortZero: with http.listen on port 0 the daemon logs the address it really listens
// on, and the operations endpoints answer there.
func TestE2EOpsOnPortZero(t *testing.T) {
	needBinary(t)
	t.Parallel()
	w := newWorkspace(t, startSim(t))
	cfg := w.configEdited(t, "ops", []string{autoRepay}, func(cfg map[string]any) {
		section(cfg, "http")["listen"] = "127.0.0.1:0"
	})
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	defer d.stop(t)
	d.waitStarted(t)
	var started struct {
		HTTP string `json:"http"`
	}
	for line := range strings.Lines(d.stderr.String()) {
		if strings.Contains(line, `"msg":"keeper started"`) {
			if err := json.Unmarshal([]byte(line), &started); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !strings.HasPrefix(started.HTTP, "127.0.0.1:") || strings.HasSuffix(started.HTTP, ":0") {
		t.Fatalf("keeper started with http %q, want the port it listens on", started.HTTP)
	}
	resp, err := http.Get("http://" + started.HTTP + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz at the logged address: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %s", resp.Status)
	}
}
