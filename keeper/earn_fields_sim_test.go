package keeper

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// renamedQueueScenario is the default scenario with a market that answers
// the withdrawal queue under other member names than keeper assumes.
func renamedQueueScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := sim.ParseScenario("renamed.yaml", append(sim.DefaultScenarioYAML(), `
market:
  withdrawal_queue_fields: { requests: items, request_id: id, wallet: owner, requested: amount,
    filled: filled, claimed: claimed, cancelled: is_cancelled, created_time: ts }
`...))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// renamedQueueConfig is the simulator config naming the same members.
var renamedQueueConfig = strings.Replace(simConfigYAML, "market:\n", `market:
  fields:
    withdrawal_queue: { requests: items, request_id: id, wallet: owner, requested: amount,
      filled: filled, claimed: claimed, cancelled: is_cancelled, created_time: ts }
`, 1)

// TestClaimUnderRenamedQueueMembersOnSim runs the claim-withdrawals example
// against a market answering the withdrawal queue under other member names.
// With market.fields.withdrawal_queue naming them, the filled request is
// claimed exactly once and lands (a second run finds nothing to do); with
// the config left at the assumed names, keeper refuses the answer as a
// decode error and claims nothing.
func TestClaimUnderRenamedQueueMembersOnSim(t *testing.T) {
	t.Run("config names them", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			if !strings.Contains(renamedQueueConfig, "withdrawal_queue:") {
				t.Fatal("the config has no market key to extend")
			}
			w := newSimWorld(t, simOptions{scenario: renamedQueueScenario(t), configYAML: renamedQueueConfig})
			w.usePolicies(t, "claim-withdrawals.yaml")
			k := w.open(t, "")
			w.advance(t, 25*time.Second)
			verifyClaimWithdrawals(t, w, k, func() {
				for range 2 {
					if err := k.RunOnce(t.Context()); err != nil {
						t.Fatalf("RunOnce: %v", err)
					}
				}
			})
			acts := k.actionsOf(t, "claim-earn-withdrawals")
			full := w.address(t, ids.KindRequest, "usdc-earn/r-full").String()
			if len(acts) != 1 || acts[0].State != journal.StateLanded || acts[0].Target != full {
				t.Errorf("journal %+v, want one landed claim of r-full", acts)
			}
			if keys := w.net.buildKeys(); len(keys) != 1 {
				t.Errorf("build keys %v, want one claim built", keys)
			}
		})
	})
	t.Run("config left at the assumed names", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newSimWorld(t, simOptions{scenario: renamedQueueScenario(t)})
			w.usePolicies(t, "claim-withdrawals.yaml")
			k := w.open(t, "")
			w.advance(t, 25*time.Second)
			plans, err := k.Plan(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(plans) != 1 || !strings.Contains(plans[0].Err, "decode") || !strings.Contains(plans[0].Err, `"requests"`) {
				t.Errorf("plan %+v, want the queue answer refused as a decode error naming requests", plans)
			}
			_ = k.RunOnce(t.Context())
			if acts := k.actionsOf(t, "claim-earn-withdrawals"); len(acts) != 0 {
				t.Errorf("journaled %+v, want no claim from an answer keeper cannot read", acts)
			}
			if keys := w.net.buildKeys(); len(keys) != 0 {
				t.Errorf("build keys %v, want nothing built", keys)
			}
			checkNothingSent(t, w)
		})
	})
}

// TestClaimNeedsTheEarnPositionOnSim has the earn position leave out the
// filled request r-full that the withdrawal queue still shows: keeper
// evaluates it with the reason and claims nothing, because the requestId
// E10 takes must be one of the position's onChainRequestAddr.
func TestClaimNeedsTheEarnPositionOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		full := w.address(t, ids.KindRequest, "usdc-earn/r-full").String()
		w.net.hosts[simMarketHost] = withoutOpenRequest(t, w.net.hosts[simMarketHost], full)
		w.usePolicies(t, "claim-withdrawals.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		plans, err := k.Plan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) != 1 || plans[0].Err != "" || len(plans[0].Actions) != 0 {
			t.Fatalf("plan %+v, want no action", plans)
		}
		skipped := plans[0].Skipped
		if len(skipped) != 1 || skipped[0].Target != full || !strings.Contains(skipped[0].Detail, "not among the earn position's open withdrawal requests") {
			t.Errorf("skipped %+v, want r-full skipped as not among the earn position's open requests", skipped)
		}
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		if acts := k.actionsOf(t, "claim-earn-withdrawals"); len(acts) != 0 {
			t.Errorf("journaled %+v, want no claim", acts)
		}
		if keys := w.net.buildKeys(); len(keys) != 0 {
			t.Errorf("build keys %v, want nothing built", keys)
		}
		checkNothingSent(t, w)
		if r, err := w.sim.Accounts().WithdrawalRequest(w.address(t, ids.KindRequest, "usdc-earn/r-full")); err != nil || !asClient[market.WithdrawalRequest](t, r).Claimable() {
			t.Errorf("r-full: %+v, %v; want it left claimable", r, err)
		}
	})
}

// withoutOpenRequest serves market like h, except that the earn position's
// open withdrawal requests leave out request id.
func withoutOpenRequest(t *testing.T, h http.Handler, id string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		if !strings.HasSuffix(req.URL.Path, "/earn/vaults/position") {
			h.ServeHTTP(rw, req)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var pos map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &pos); err != nil {
			t.Errorf("earn position answer: %v", err)
			return
		}
		kept := []any{}
		for _, r := range pos["openWithdrawalRequests"].([]any) {
			if r.(map[string]any)["onChainRequestAddr"] != id {
				kept = append(kept, r)
			}
		}
		if len(kept) == len(pos["openWithdrawalRequests"].([]any)) {
			t.Errorf("the earn position did not list %s", id)
		}
		pos["openWithdrawalRequests"] = kept
		body, _ := json.Marshal(pos)
		for k, v := range rec.Header() {
			rw.Header()[k] = v
		}
		rw.Header().Del("Content-Length")
		rw.WriteHeader(rec.Code)
		_, _ = bytes.NewReader(body).WriteTo(rw)
	})
}
