package tipfloor_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/chain/tipfloor"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

func TestURLFor(t *testing.T) {
	for _, tt := range []struct{ engine, want string }{
		{"https://mainnet.block-engine.jito.wtf", "https://bundles.jito.wtf/api/v1/bundles/tip_floor"},
		{"https://amsterdam.mainnet.block-engine.jito.wtf/api/v1/bundles?uuid=SECRET", "https://bundles.jito.wtf/api/v1/bundles/tip_floor"},
		{"http://127.0.0.1:7072", "http://127.0.0.1:7072/api/v1/bundles/tip_floor"},
		{"https://user:pass@engine.example/key/SECRET?k=SECRET", "https://engine.example/api/v1/bundles/tip_floor"},
		{"https://jito.wtf.evil.example", "https://jito.wtf.evil.example/api/v1/bundles/tip_floor"},
		{"", ""},
	} {
		if got := tipfloor.URLFor(tt.engine); got != tt.want {
			t.Errorf("URLFor(%q) = %q, want %q", tt.engine, got, tt.want)
		}
	}
}

// jitoSample is an answer of Jito's public tip-floor API.
const jitoSample = `[{"time":"2024-09-01T12:58:00Z","landed_tips_25th_percentile":6.001000000000001e-06,` +
	`"landed_tips_50th_percentile":1e-05,"landed_tips_75th_percentile":3.6196500000000005e-05,` +
	`"landed_tips_95th_percentile":0.0014479055000000002,"landed_tips_99th_percentile":0.010007999,` +
	`"ema_landed_tips_50th_percentile":9.836078125000002e-06}]`

func TestReadShapes(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    tipfloor.Floor
		wantErr string
	}{
		{"jito's answer", 200, jitoSample, tipfloor.Floor{Time: time.Date(2024, 9, 1, 12, 58, 0, 0, time.UTC),
			P25: 6001, P50: 10_000, P75: 36_197, P95: 1_447_906, P99: 10_007_999, EMA50: 9836}, ""},
		{"a missing percentile", 200, `[{"time":"2024-09-01T12:58:00Z","landed_tips_25th_percentile":1e-6}]`, tipfloor.Floor{}, "landed_tips_50th_percentile is missing"},
		{"a negative tip", 200, strings.Replace(jitoSample, "1e-05", "-1e-05", 1), tipfloor.Floor{}, "want 0 to"},
		{"no entry", 200, `[]`, tipfloor.Floor{}, "no entry"},
		{"not json", 200, `<html>`, tipfloor.Floor{}, "decode"},
		{"rate limited", 429, `Too Many Requests`, tipfloor.Floor{}, "HTTP 429"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = append(asked, r.Method+" "+r.URL.Path)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			secret := "/key/SECRETKEY12345"
			var observed []error
			r := &tipfloor.Reader{URL: srv.URL + secret, HTTP: srv.Client(),
				Observe: func(method string, _ time.Duration, err error) { observed = append(observed, err) }}
			got, err := r.Read(context.Background())
			if len(asked) != 1 || asked[0] != "GET "+secret || len(observed) != 1 || observed[0] != err {
				t.Fatalf("requests %v, observed %v; want one GET %s, observed", asked, observed, secret)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "SECRETKEY") {
					t.Fatalf("err = %v, want one saying %q without the key", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Read = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	t.Run("no url", func(t *testing.T) {
		if _, err := (&tipfloor.Reader{}).Read(context.Background()); err == nil || !strings.Contains(err.Error(), "chain.tip_floor_url") {
			t.Fatalf("Read without url: %v", err)
		}
	})
}

// TestReadFromSim reads, at the URL derived from the engine's, the tip
// floor of the simulator's block engine.
func TestReadFromSim(t *testing.T) {
	clk := chainsim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	c, err := chainsim.New(chainsim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Market.SetTipLoad(0, &chainsim.TipLoad{Tips: []uint64{12_000}, Bundles: 3, Room: 2}); err != nil {
		t.Fatalf("SetTipLoad: %v", err)
	}
	clk.Advance(5 * chainsim.SlotDuration)
	srv := httptest.NewServer(c.Jito().Handler())
	defer srv.Close()
	r := &tipfloor.Reader{URL: tipfloor.URLFor(srv.URL), HTTP: srv.Client()}
	got, err := r.Read(context.Background())
	want := c.Market.TipFloor()
	if err != nil || got.P25 != 12_000 || got.P99 != 12_000 || got.EMA50 != 12_000 || !got.Time.Equal(want.Time) {
		t.Fatalf("Read = %+v, %v; want 12000 lamports throughout at %v", got, err, want.Time)
	}
}
