package examples_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

// faultSeeds is how many simulator seeds the fault matrix runs for each use case and fault.
var faultSeeds = flag.Int("faults.seeds", 1, "seeds per use case and fault of the fault matrix (use 10 or more for a long run)")

// faultCase is one column of the fault matrix: a `keeper sim --faults` spec.
type faultCase struct {
	name string
	spec string
}

// faultCases inject each fault alone, then all of them mixed. Rates are per request; the mixed case
// fails up to 30 % of the requests of each service.
var faultCases = []faultCase{
	{"market-5xx", "market:server-error=30%"},
	{"market-429", "market:rate-limit=25%,retry-after=1s"},
	{"market-timeout", "market:timeout=25%"},
	{"market-truncated", "market:truncate=30%"},
	{"market-null", "market:null=30%"},
	{"market-wrong-shape", "market:wrong-shape=30%"},
	// 409 to a build: the market took the attempt's Idempotent-Key for another request. Nothing was
	// signed under it, so a later attempt builds afresh under a new key. (Reads take no key.)
	{"market-409", conflictOnBuilds("30%")},
	{"rpc-5xx", "rpc:server-error=30%"},
	{"rpc-429", "rpc:rate-limit=20%,retry-after=1s"},
	{"rpc-timeout", "rpc:timeout=20%"},
	{"rpc-truncated", "rpc:truncate=20%"},
	{"tx-dropped", "rpc.sendTransaction:never-land=50%"},
	{"bundle-dropped", "jito.sendBundle:never-land=50%"},
	{"slot-stall", "rpc.sendTransaction:stall=50%,stall-slots=20"},
	// Statuses from a node 30 slots behind the others, with 30 % of the sends dropped so that some
	// transactions land late in their blockhash's life: none may be taken for expired.
	{"lagging-statuses", "rpc.getSignatureStatuses:lag=30,rpc.sendTransaction:never-land=30%"},
	{"mixed-30", "market:server-error=10%,market:timeout=5%,market:truncate=5%,market:null=5%,market:wrong-shape=5%," +
		"rpc:server-error=10%,rpc:rate-limit=5%,rpc:timeout=5%,rpc:truncate=5%," +
		"rpc.sendTransaction:never-land=30%,rpc.sendTransaction:stall=10%,jito.sendBundle:never-land=30%,jito:server-error=10%," +
		"retry-after=1s,stall-slots=10"},
}

// conflictOnBuilds is a spec answering 409 to rate of the calls of every transaction-building
// endpoint.
func conflictOnBuilds(rate string) string {
	var items []string
	for _, ep := range []string{"update_strategy", "build_loan", "transfer_position", "claim_fees", "withdraw_strategy", "withdraw_claim"} {
		items = append(items, "market."+ep+":conflict="+rate)
	}
	return strings.Join(items, ",")
}

// Bounds of the fault matrix: passes of `run --once` until every intended action landed, and
// requests per pass, far above what a pass needs with faults retried (no busy loop).
const (
	maxFaultPasses        = 6
	maxMarketRequestsPass = 300
	maxChainRequestsPass  = 3000
)

// TestE2EFaultMatrix runs every use case under every fault of faultCases against `keeper sim
// --faults` as a separate process, with short client timeouts, passing `run --once` until the
// intended actions landed (a cron deployment's passes). Each intended action must land exactly once,
// none may be lost, the wallet must have signed only what the journal holds, a further pass must not
// act on those targets again, and no pass may make more requests than a bounded retry would. (When
// faults hold a pass back long enough, the scenario's later events make other policies of the same
// file act too; that is allowed, and their transactions must be journaled as well.)
func TestE2EFaultMatrix(t *testing.T) {
	needBinary(t)
	if raceBuild {
		// The matrix gives the clients 300 ms timeouts and a bounded number of passes: it measures
		// whether keeper copes with faults at its own speed, which a race-instrumented daemon and
		// simulator (3x slower, docs/benchmarks.md) do not have. .ci/run runs it without -race.
		t.Skip("the fault matrix runs without -race (.ci/run runs it on its own)")
	}
	t.Parallel()
	for _, c := range crashCases {
		for _, fc := range faultCases {
			for seed := 1; seed <= *faultSeeds; seed++ {
				t.Run(fmt.Sprintf("%s/%s/seed-%d", c.name, fc.name, seed), func(t *testing.T) {
					t.Parallel()
					runUnderFaults(t, c, fc, seed)
				})
			}
		}
	}
}

// runUnderFaults runs one cell of the fault matrix.
func runUnderFaults(t *testing.T, c crashCase, fc faultCase, seed int) {
	s := c.startSim(t, seed, "--faults", fc.spec)
	w := newWorkspace(t, s)
	s.until(t, c.at)
	want := c.want(t, s, s.state(t))
	cfg := c.config(t, w, func(cfg map[string]any) {
		section(cfg, "market")["timeout"] = "300ms"
		section(cfg, "chain")["timeout"] = "300ms"
	})
	args := []string{"run", "--once", "--config", cfg, "--log-format", "json"}
	passes := 0
	for !allLanded(t, w, cfg, want) {
		if passes == maxFaultPasses {
			t.Fatalf("after %d passes under %s, not every intended action landed: %+v", passes, fc.spec, w.history(t, cfg))
		}
		passes++
		boundedPass(t, s, w, args)
	}
	t.Logf("%s landed in %d passes", c.name, passes)
	landedOnceAfterCrash(t, w, cfg, want, true)
	boundedPass(t, s, w, args)
	for _, a := range w.newActions(t, cfg) {
		if want[a.Policy] != "" {
			t.Errorf("a pass after %s landed acted again: %+v", a.Policy, a)
		}
	}
	s.checkSignedInJournal(t, s.state(t).Signed, w.history(t, cfg))
	c.checked(t, s)
}

// boundedPass runs one pass of `keeper run --once`, which may exit 0 or 1 (an action failed or is
// unsettled, or a read failed) but nothing else, and checks the requests it made.
func boundedPass(t *testing.T, s *simProc, w *workspace, args []string) {
	t.Helper()
	before := s.state(t)
	r := s.runActing(t, w.dir, args...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("keeper run --once exited %d under faults; stderr:\n%s", r.code, r.stderr)
	}
	after := s.state(t)
	market, chain := after.MarketRequests-before.MarketRequests, after.Traffic-before.Traffic
	t.Logf("pass: exit %d, %d market and %d RPC/Jito requests", r.code, market, chain)
	if r.code != 0 && testing.Verbose() {
		t.Logf("stderr:\n%s", r.stderr)
	}
	if market > maxMarketRequestsPass || chain > maxChainRequestsPass {
		t.Errorf("one pass made %d market and %d RPC/Jito requests, over the bounds %d and %d",
			market, chain, maxMarketRequestsPass, maxChainRequestsPass)
	}
}

// allLanded reports whether each policy of want has a landed action on its target.
func allLanded(t *testing.T, w *workspace, cfg string, want map[string]string) bool {
	t.Helper()
	landed := map[string]bool{}
	for _, a := range w.history(t, cfg) {
		if a.State == "landed" && want[a.Policy] == a.Target {
			landed[a.Policy] = true
		}
	}
	return len(landed) == len(want)
}
