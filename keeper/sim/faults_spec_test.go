package sim

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

func TestParseFaults(t *testing.T) {
	got, err := faults.Parse("market:server-error=10%, market.loans_info:null=0.05,market.loans_info:script=timeout+none+wrong-shape," +
		"rpc.sendTransaction:never-land=0.2,rpc.getSignatureStatuses:lag=60,rpc:latency=20ms,rpc:jitter=5ms,jito:rate-limit=0.3,retry-after=2s,stall-slots=7")
	if err != nil {
		t.Fatal(err)
	}
	want := faults.Faults{
		Chain: chainsim.Faults{
			RPC: inject.ServiceFaults{
				All:     inject.MethodFaults{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
				Methods: map[string]inject.MethodFaults{"sendTransaction": {Rates: inject.Rates{NeverLand: 0.2}}, "getSignatureStatuses": {LagSlots: 60}},
			},
			Jito:       inject.ServiceFaults{All: inject.MethodFaults{Rates: inject.Rates{RateLimit: 0.3}}},
			RetryAfter: 2 * time.Second,
			StallSlots: 7,
		},
		Market: faults.Market{
			All: inject.MethodFaults{Rates: inject.Rates{ServerError: 0.1}},
			Endpoints: map[string]inject.MethodFaults{market.EndpointLoansInfo: {
				Rates:  inject.Rates{Null: 0.05},
				Script: []inject.Fault{inject.FaultTimeout, inject.FaultNone, inject.FaultWrongShape},
			}},
			RetryAfter: 2 * time.Second,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseFaults:\n got %+v\nwant %+v", got, want)
	}
	if empty, err := faults.Parse(""); err != nil || !reflect.DeepEqual(empty, faults.Faults{}) {
		t.Errorf("empty spec: %+v, %v", empty, err)
	}
}

func TestParseFaultsMixedSnapshots(t *testing.T) {
	for spec, want := range map[string]faults.SnapshotSkew{
		"market.loans_info:mixed-snapshots=once":         faults.SnapshotSkewOnce,
		"market:mixed-snapshots=always":                  faults.SnapshotSkewAlways,
		"market.loans_info:mixed-snapshots=none":         faults.SnapshotSkewNone,
		"market:timeout=0.1,market:mixed-snapshots=once": faults.SnapshotSkewOnce,
	} {
		got, err := faults.Parse(spec)
		if err != nil || got.Market.SnapshotSkew != want {
			t.Errorf("ParseFaults(%q) = %v, %v; want snapshot skew %v", spec, got.Market.SnapshotSkew, err, want)
		}
	}
}

func TestParseFaultsErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"market:server-error":                    "want SERVICE",
		"db:timeout=0.1":                         `unknown service "db"`,
		"market:explode=0.1":                     `unknown setting "explode"`,
		"market:none=0.1":                        `unknown setting "none"`,
		"market:timeout=lots":                    "want a number",
		"market:timeout=1.5":                     "outside [0, 1]",
		"rpc.getSignatureStatuses:lag=soon":      "want a number of slots",
		"market:timeout=60%,market:truncate=50%": "add up to",
		"market:never-land=0.1":                  "chain faults, not market faults",
		"rpc:null=0.1":                           "market faults, not chain faults",
		"rpc:script=timeout+wrong-shape":         "market fault, not a chain fault",
		"rpc.getBalanse:timeout=0.1":             `unknown method "getBalanse"`,
		"market.loan-info:timeout=0.1":           `unknown endpoint "loan-info"`,
		"rpc:latency=soon":                       "invalid duration",
		"stall-slots=-1":                         "invalid syntax",
		"speed=11":                               `unknown setting "speed"`,
		"market:mixed-snapshots=sometimes":       `unknown snapshot skew "sometimes"`,
		"market.build_loan:mixed-snapshots=once": "fault of market.loans_info only",
		"rpc:mixed-snapshots=once":               "fault of market.loans_info only",
	} {
		_, err := faults.Parse(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFaults(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
}

func TestMarketNullWrongShapeOversize(t *testing.T) {
	e := newEnv(t, Options{})
	if err := e.sim.Faults().InjectMarket(market.EndpointLoansInfo, inject.FaultNull, inject.FaultWrongShape, inject.FaultOversize); err != nil {
		t.Fatal(err)
	}
	if r := e.post(t, http.MethodPost, "markets/loans/info", "", "", `{}`); r.status != 200 || string(r.body) != "null" {
		t.Errorf("null fault: %d %s", r.status, r.body)
	}
	if _, err := e.market.LoansInfo(e.ctx, market.LoansQuery{}); err == nil || !api.IsRetryable(err) {
		t.Errorf("wrong-shape answer: %v, want a retryable decode error", err)
	}
	_, err := e.market.LoansInfo(e.ctx, market.LoansQuery{})
	if ae, ok := errors.AsType[*api.APIError](err); !ok || !strings.Contains(err.Error(), "response body larger than") {
		t.Errorf("oversize answer: %v (%+v), want an API error saying the body is too large", err, ae)
	}
	if _, err := e.market.LoansInfo(e.ctx, market.LoansQuery{}); err != nil {
		t.Errorf("after the script: %v", err)
	}
}

func TestParseFaultsPubsub(t *testing.T) {
	got, err := faults.Parse("ws:refuse=true,ws:drop-after=3")
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Chain.Pubsub; !p.RefuseUpgrade || p.DropAfter != 3 {
		t.Fatalf("pubsub faults = %+v", p)
	}
	for _, bad := range []string{"ws:drop-after=-1", "ws:refuse=maybe", "ws:latency=1s"} {
		if _, err := faults.Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
