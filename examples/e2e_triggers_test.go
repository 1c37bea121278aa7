package examples_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/sim"
)

// triggerScenario is one loan of the wallet, healthy at SOL 150 (10 SOL against 900 USDC: health
// 1 − 900 / (0.85 × 1500) = 0.29, over trigger-repay's 0.2) and under the trigger at SOL 120
// (1 − 900 / 1020 = 0.12), with SOL's Pyth feed. %s holds the scenario's events.
var triggerScenario = lendingScenario("triggers", "10", "100000", "100000", true) +
	`  - {name: low, borrower: $wallet, collateral: [{mint: SOL, amount: "10"}], ledgers: [{strategy: beta, principal: "900", term: 30d}]}
events:
%s`

// triggerRig is `keeper sim` with a trigger scenario and a keeper daemon running trigger-repay on
// it, scheduled hourly: within a test nothing but a trigger runs the policy.
type triggerRig struct {
	sim  *simProc
	w    *workspace
	d    *daemon
	http string // the daemon's operations endpoint
}

// startTriggerRig starts the simulator with events (scenario YAML list items) and simFlags, and the
// daemon with trigger-repay (debounce given, and each old → new of edits applied) polling every
// 50 ms while its websocket is down.
func startTriggerRig(t *testing.T, events, debounce string, edits []string, simFlags ...string) *triggerRig {
	t.Helper()
	needBinary(t)
	dir := t.TempDir()
	scenario := filepath.Join(dir, "triggers.yaml")
	if err := os.WriteFile(scenario, fmt.Appendf(nil, triggerScenario, events), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSimWith(t, "--manual-clock", append([]string{"--scenario", scenario}, simFlags...)...)
	src, err := os.ReadFile("triggers/trigger-repay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	policy := strings.Replace(string(src), `schedule: "@every 10m"`, `schedule: "@every 1h"`, 1)
	policy = strings.Replace(policy, "debounce: 400ms", "debounce: "+debounce, 1)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(policy, edits[i]) {
			t.Fatalf("trigger-repay.yaml no longer has %q", edits[i])
		}
		policy = strings.Replace(policy, edits[i], edits[i+1], 1)
	}
	if policy == string(src) {
		t.Fatal("trigger-repay.yaml no longer has the schedule and debounce this test replaces")
	}
	policyFile := filepath.Join(dir, "trigger-repay.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, s)
	cfg := w.configEdited(t, "triggers", []string{policyFile}, func(c map[string]any) {
		section(c, "http")["listen"] = "127.0.0.1:0"
		section(c, "chain")["watch_poll"] = "50ms"
	})
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json", "--log-level", "debug")
	t.Cleanup(func() { d.stop(t) })
	d.waitStarted(t)
	r := &triggerRig{sim: s, w: w, d: d}
	for line := range strings.Lines(d.stderr.String()) {
		var started struct {
			HTTP string `json:"http"`
		}
		if strings.Contains(line, `"msg":"keeper started"`) && json.Unmarshal([]byte(line), &started) == nil {
			r.http = started.HTTP
		}
	}
	return r
}

// advance moves the simulator to secs after its start, once n subscriptions are open (nil: at once).
func (r *triggerRig) advance(t *testing.T, secs float64, subscriptions *int) {
	t.Helper()
	if _, err := r.sim.advance(t.Context(), sim.AdvanceRequest{Until: secs, AfterSubscriptions: subscriptions}); err != nil {
		t.Fatalf("advance until %gs: %v", secs, err)
	}
}

// paceUntilRuns moves the clock one slot per chain request of keeper until n runs of the policy
// have ended, and returns the simulator's state then.
func (r *triggerRig) paceUntilRuns(t *testing.T, n int) sim.ControlState {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	paced := make(chan error, 1)
	go func() {
		_, err := r.sim.pace(ctx, maxPaceSteps)
		paced <- err
	}()
	r.waitLog(t, runDone, n)
	cancel()
	if err := <-paced; err != nil {
		t.Fatalf("pacing: %v", err)
	}
	return r.sim.state(t)
}

// metric returns the value of the series of /metrics whose line starts with prefix (0 if absent).
func (r *triggerRig) metric(t *testing.T, prefix string) string {
	t.Helper()
	for line := range strings.Lines(opsGet(t, r.http, "/metrics")) {
		if strings.HasPrefix(line, prefix+" ") {
			return strings.TrimSpace(strings.TrimPrefix(line, prefix))
		}
	}
	return "0"
}

// triggerStatus reads the policy's triggers from /status.
func (r *triggerRig) triggerStatus(t *testing.T) []struct {
	Trigger   string    `json:"trigger"`
	Fired     int       `json:"fired"`
	LastFired time.Time `json:"last_fired"`
} {
	t.Helper()
	var doc struct {
		Policies []struct {
			Triggers []struct {
				Trigger   string    `json:"trigger"`
				Fired     int       `json:"fired"`
				LastFired time.Time `json:"last_fired"`
			} `json:"triggers"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(opsGet(t, r.http, "/status")), &doc); err != nil || len(doc.Policies) != 1 {
		t.Fatalf("/status: %v (%d policies)", err, len(doc.Policies))
	}
	return doc.Policies[0].Triggers
}

// armed is the log line of the price trigger's first price: from then on a move fires it.
const armed = `"msg":"Price trigger armed"`

// runDone is the log line that ends each run of the policy.
const runDone = `"msg":"Policy run done"`

// TestE2ETriggerRepaysBeforeTheSchedule crashes SOL by 20 % at slot 50: the price trigger runs the
// hourly policy at once and the loan is repaid long before its first tick. A second crash at slot
// 400 fires the trigger again, but the loan's 10-minute cooldown holds the repay back.
func TestE2ETriggerRepaysBeforeTheSchedule(t *testing.T) {
	t.Parallel()
	r := startTriggerRig(t, `  - at_slot: 50
    price_move: {mint: SOL, by: -0.2}
  - at_slot: 400
    price_move: {mint: SOL, by: -0.1}
`, "400ms", nil)
	one := 1
	r.waitLog(t, armed, 1)
	r.advance(t, 52*slotSeconds, &one) // the crash and the end of its slot, once keeper watches SOL's price account
	st := r.paceUntilRuns(t, 1)
	if len(st.Signed) != 1 || st.Signed[0].Err != "" {
		t.Fatalf("signed %+v, want one landed repay", st.Signed)
	}
	acts := r.w.newActions(t, r.w.last)
	if len(acts) != 1 || acts[0].Kind != "repay" || acts[0].State != "landed" {
		t.Fatalf("journal %+v, want one landed repay", acts)
	}
	r.advance(t, 402*slotSeconds, &one)
	r.paceUntilRuns(t, 2)
	if got := strings.Count(r.d.stderr.String(), `"msg":"Running on trigger"`); got != 2 {
		t.Errorf("%d triggered runs, want 2", got)
	}
	if st := r.sim.state(t); len(st.Signed) != 1 {
		t.Errorf("signed %d transactions after the second crash, want the cooldown to hold the repay back", len(st.Signed))
	}
	ts := r.triggerStatus(t)
	if len(ts) != 1 || ts[0].Fired != 2 || ts[0].LastFired.IsZero() || !strings.HasPrefix(ts[0].Trigger, "price So1111") {
		t.Errorf("/status triggers %+v, want the price trigger fired twice", ts)
	}
	plan := runKeeper(t, r.w.dir, "plan", "--config", r.w.last).wantExit(t, 0).stdout
	if !strings.Contains(plan, "  trigger price So11111111111111111111111111111111111111112 ±3%: last fired ") ||
		!strings.Contains(plan, "So11111111111111111111111111111111111111112 moved -10.00%") || !strings.Contains(plan, "; 2 firings") {
		t.Errorf("plan does not show the trigger's two firings, the last a 10 %% move:\n%s", plan)
	}
}

// TestE2ETriggerRespectsTheDailyCap runs trigger-repay without a cooldown and with a daily cap of
// 200 USDC: the first crash (SOL 150 → 120) repays 193.027451 USDC, the second (→ 90) wants about
// 179 USDC, more than the 6.972549 USDC left, and is lowered to exactly that.
func TestE2ETriggerRespectsTheDailyCap(t *testing.T) {
	t.Parallel()
	r := startTriggerRig(t, `  - at_slot: 50
    price_move: {mint: SOL, by: -0.2}
  - at_slot: 400
    price_move: {mint: SOL, by: -0.25}
`, "400ms", []string{"cooldown: 10m", "cooldown: 0s",
		"4LZC4BmvoqqE2PGbnk2cYiJtDCpVcmyRA4kkLQPSAvo4: 1000000000", "4LZC4BmvoqqE2PGbnk2cYiJtDCpVcmyRA4kkLQPSAvo4: 200000000"})
	one := 1
	r.waitLog(t, armed, 1)
	r.advance(t, 52*slotSeconds, &one)
	r.paceUntilRuns(t, 1)
	r.advance(t, 402*slotSeconds, &one)
	r.paceUntilRuns(t, 2)
	acts := r.w.newActions(t, r.w.last)
	var amounts []uint64
	for _, a := range acts {
		if a.State == "landed" {
			amounts = append(amounts, a.Amount)
		}
	}
	slices.Sort(amounts)
	if len(amounts) != 2 || amounts[0]+amounts[1] != 200_000_000 {
		t.Fatalf("landed repays of %v units, want two summing to the 200 USDC cap (journal %+v)", amounts, acts)
	}
}

// TestE2ETriggerSurvivesADroppedWebsocket drops keeper's websocket after its first notification (a
// 1 % move at slot 20, under the trigger): keeper polls until it reconnects, the 20 % crash made
// meanwhile fires the trigger and the loan is repaid; then keeper subscribes again.
func TestE2ETriggerSurvivesADroppedWebsocket(t *testing.T) {
	t.Parallel()
	r := startTriggerRig(t, `  - at_slot: 20
    price_move: {mint: SOL, by: -0.01}
  - at_slot: 50
    price_move: {mint: SOL, by: -0.2}
`, "400ms", nil, "--faults", "ws:drop-after=1")
	one := 1
	r.waitLog(t, armed, 1)
	r.advance(t, 22*slotSeconds, &one) // notified, then dropped
	r.waitLog(t, `"msg":"Watching chain accounts by polling"`, 1)
	r.advance(t, 52*slotSeconds, nil) // while keeper polls
	st := r.paceUntilRuns(t, 1)
	if len(st.Signed) != 1 || st.Signed[0].Err != "" {
		t.Fatalf("signed %+v, want one landed repay", st.Signed)
	}
	r.waitLog(t, `"msg":"Watching chain accounts over the websocket"`, 2)
}

// TestE2ETriggerBurstIsTwoRunsAtMost moves SOL 51 times over 3 slots, 1 % each: each slot's
// notification moves the price past the trigger's 3 %. The first starts a run at once; the others,
// within the debounce window (1 s, more than the 3 slots), join at most one run at its end.
func TestE2ETriggerBurstIsTwoRunsAtMost(t *testing.T) {
	t.Parallel()
	var events strings.Builder
	for i := range 51 {
		fmt.Fprintf(&events, "  - at_slot: %d\n    price_move: {mint: SOL, by: -0.01}\n", 50+i/17)
	}
	r := startTriggerRig(t, events.String(), "1s", nil)
	one := 1
	r.waitLog(t, armed, 1)
	r.advance(t, 50*slotSeconds, &one)
	r.advance(t, 54*slotSeconds, nil)                     // the burst and the end of its slots
	if st := r.paceUntilRuns(t, 1); len(st.Signed) != 1 { // SOL at 150 × 0.99^17 = 126: the loan is repaid
		t.Errorf("signed %+v, want one repay", st.Signed)
	}
	// The window's end runs what fired after the first run took its scope, if anything did; the
	// window that run opens ends with nothing.
	want := 1
	for n := 1; ; n++ {
		r.waitLog(t, windowEnded, n)
		if !strings.Contains(nthLine(r.d.stderr.String(), windowEnded, n), `"run":true`) {
			break
		}
		want++
		r.paceUntilRuns(t, want)
	}
	if runs := strings.Count(r.d.stderr.String(), `"msg":"Running on trigger"`); runs != want || runs > 2 {
		t.Errorf("%d triggered runs for the burst (%d windows ran one), want the first notification's and at most one more", runs, want-1)
	}
	if got := r.metric(t, `keeper_trigger_firings_total{policy="trigger-repay",trigger="price"}`); got != "3" {
		t.Errorf("%s price firings counted, want 3: one a slot", got)
	}
	// The repay's journal: its intent and its signatures committed durably, its build, submission
	// and landing lazily, each commit timed.
	for _, series := range []string{`keeper_journal_commit_duration_seconds_count{durability="durable"}`,
		`keeper_journal_commit_duration_seconds_count{durability="lazy"}`} {
		if got, err := strconv.ParseFloat(r.metric(t, series), 64); err != nil || got < 2 {
			t.Errorf("%s = %v (%v), want at least 2 after a landed repay", series, got, err)
		}
	}
}

// windowEnded is the log line of the end of a policy's debounce window.
const windowEnded = `"msg":"Debounce window ended"`

// nthLine is the n-th line (from 1) of log containing sub, or "".
func nthLine(log, sub string, n int) string {
	for line := range strings.Lines(log) {
		if strings.Contains(line, sub) {
			if n--; n == 0 {
				return line
			}
		}
	}
	return ""
}

// waitLog waits until keeper's log has n lines containing sub.
func (r *triggerRig) waitLog(t *testing.T, sub string, n int) {
	t.Helper()
	select {
	case <-r.d.stderr.linesContaining(sub, n):
	case <-r.d.exited:
		t.Fatalf("keeper exited waiting for %d lines with %s:\n%s", n, sub, r.d.stderr.String())
	case <-time.After(procTimeout):
		t.Fatalf("fewer than %d lines with %s:\n%s", n, sub, r.d.stderr.String())
	}
}
