package keeper

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/config"
)

// TestTipFloorRequestsCountAsRPC: the tip floor's requests count in the RPC
// metrics as method tip_floor, a failed one among the errors (before, the
// reader was wired without its hook and they counted nowhere).
func TestTipFloorRequestsCountAsRPC(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `[{"time":"2026-11-28T12:00:00Z","landed_tips_25th_percentile":1e-6,`+
			`"landed_tips_50th_percentile":2e-6,"landed_tips_75th_percentile":3e-6,`+
			`"landed_tips_95th_percentile":4e-6,"landed_tips_99th_percentile":5e-6,"ema_landed_tips_50th_percentile":2e-6}]`)
	}))
	defer srv.Close()
	yaml := strings.Replace(testConfigYAML, "chain:\n", "chain:\n  tip_floor_url: "+srv.URL+"\n", 1)
	cfg, err := config.Load("keeper.yaml", t.TempDir(), []byte(yaml), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(nil)
	floor := priorityConfig(cfg, nil, m).TipFloor
	if _, err := floor.Read(t.Context()); err != nil {
		t.Fatalf("read the floor: %v", err)
	}
	status = http.StatusInternalServerError
	if _, err := floor.Read(t.Context()); err == nil {
		t.Fatal("a 500 read as a floor")
	}
	if n := testutil.CollectAndCount(m.RPCRequests, "keeper_rpc_request_duration_seconds"); n != 1 {
		t.Errorf("%d request series, want the tip_floor one", n)
	}
	if got := testutil.ToFloat64(m.RPCErrors.WithLabelValues("tip_floor")); got != 1 {
		t.Errorf("tip_floor errors = %v, want 1", got)
	}
}
