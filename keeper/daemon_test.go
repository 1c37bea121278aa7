package keeper

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// running is a keeper process's Run in the background of a bubble.
type running struct {
	reload  chan struct{}
	cancel  context.CancelFunc
	done    chan error
	started time.Time

	once sync.Once
	err  error
}

// start runs k.Run until stop, or until the test ends.
func (k *simKeeper) start(t *testing.T) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{reload: make(chan struct{}), cancel: cancel, done: make(chan error, 1), started: time.Now()}
	go func() { r.done <- k.Run(ctx, r.reload) }()
	t.Cleanup(func() { _ = r.stop() })
	return r
}

// stop cancels Run's context and returns what Run returned.
func (r *running) stop() error {
	r.once.Do(func() {
		r.cancel()
		r.err = <-r.done
	})
	return r.err
}

// reloadNow asks Run to reload and waits until it has.
func (r *running) reloadNow() {
	r.reload <- struct{}{}
	synctest.Wait()
}

// runs is how many runs of policy ended with outcome.
func (k *simKeeper) runs(policy, outcome string) float64 {
	return testutil.ToFloat64(k.metrics.Runs.WithLabelValues(policy, outcome))
}

// examplePolicies are the example files and the action policies they hold.
var (
	exampleFiles    = []string{"auto-repay.yaml", "rebalance.yaml", "claim-fees.yaml", "claim-withdrawals.yaml", "vault-upkeep.yaml", "alerts.yaml"}
	exampleActions  = []string{"auto-repay", "auto-repay-sol", "rebalance-dex-a", "claim-fees-dex-b", "claim-earn-withdrawals", "track-best-quote", "sweep-idle-principal"}
	exampleAlerting = []string{"vault-apy-floor", "loan-health-low"}
)

// TestRunLandsEveryExampleOnSchedule is `keeper run --sim` in virtual time:
// Run with every example policy for a minute of the default scenario. Each
// policy runs on its @every 5s schedule, each action policy lands exactly
// one action, nothing overlaps, and shutdown returns nil.
func TestRunLandsEveryExampleOnSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, exampleFiles...)
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(62 * time.Second)
		synctest.Wait()
		for _, p := range append(append([]string(nil), exampleActions...), exampleAlerting...) {
			if ok, bad := k.runs(p, "ok"), k.runs(p, "error")+k.runs(p, "panic"); ok != 12 || bad != 0 {
				t.Errorf("policy %s: %v ok and %v failed runs in 62 s of @every 5s, want 12 and 0", p, ok, bad)
			}
			if got := testutil.ToFloat64(k.metrics.RunsSkipped.WithLabelValues(p, "overlap")); got != 0 {
				t.Errorf("policy %s: %v overlapping ticks skipped", p, got)
			}
		}
		wantLanded := 0
		for _, p := range exampleActions {
			acts := k.actionsOf(t, p)
			if len(acts) != 1 {
				t.Errorf("policy %s journaled %d actions, want 1", p, len(acts))
				continue
			}
			wantLanded += checkOnChain(t, w, acts[0])
		}
		if got := len(w.landed.paidBy(w.wallet())); got != wantLanded {
			t.Errorf("%d transactions paid by the wallet landed, want the actions' %d", got, wantLanded)
		}
		checkStatus(t, k, r.started)
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	})
}

// checkStatus asserts /status lists every example policy with its next
// tick on its 5 s grid, in the future, and a last run without error.
func checkStatus(t *testing.T, k *simKeeper, started time.Time) {
	t.Helper()
	ps := statusPolicies(t, k)
	if len(ps) != len(exampleActions)+len(exampleAlerting) {
		t.Errorf("/status lists %d policies, want %d", len(ps), len(exampleActions)+len(exampleAlerting))
	}
	for _, p := range ps {
		next := p.NextRun.Sub(started)
		if !p.NextRun.After(time.Now()) || next%(5*time.Second) != 0 {
			t.Errorf("/status: %s next run %v in, want a future tick of its 5 s schedule", p.Name, next)
		}
		if p.LastRun == nil || p.LastRun.Error != "" || p.LastRun.RunID == "" || p.LastRun.Outcome != "ok" {
			t.Errorf("/status: %s last run %+v", p.Name, p.LastRun)
		}
	}
}

// statusPolicies decodes the policies of the /status document.
func statusPolicies(t *testing.T, k *simKeeper) []policyStatus {
	t.Helper()
	b, err := json.Marshal(k.status())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Policies []policyStatus `json:"policies"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Policies
}

// cronAlerts are two cheap alerts on different kinds of schedule.
const cronAlerts = `policies:
  - name: every-7s
    kind: alert
    schedule: "@every 7s"
    select: { target: loans }
    when: loan.health < 0.01
    params: { severity: info, message: "{{.loan.address}}" }
  - name: each-minute
    kind: alert
    schedule: "* * * * *"
    select: { target: vaults }
    when: vault.total_apy < 0.0001
    params: { severity: info, message: "{{.vault.address}}" }
`

// TestRunFiresOnCronSpecs runs an @every policy and a five-field cron
// policy for 3 min 5 s of virtual time from midnight UTC: 26 and 3 runs,
// the cron one on the minute.
func TestRunFiresOnCronSpecs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.writePolicy(t, "cron.yaml", cronAlerts)
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(3*time.Minute + 5*time.Second)
		synctest.Wait()
		if got := k.runs("every-7s", "ok"); got != 26 {
			t.Errorf("@every 7s ran %v times in 185 s, want 26", got)
		}
		if got := k.runs("each-minute", "ok"); got != 3 {
			t.Errorf("* * * * * ran %v times in 185 s, want 3", got)
		}
		for _, c := range w.net.log() {
			if strings.HasSuffix(c.Path, "/lending_vaults/info") && (c.Start.Second() != 0 || c.Start.Nanosecond() != 0) {
				t.Errorf("the each-minute policy read vaults at %v, off the minute", c.Start.Format(time.TimeOnly))
			}
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// TestRunSkipsOverlappingTicks makes every loans read take 8 s, so a run of
// a policy scheduled every 5 s outlasts the next tick: that tick is skipped
// and counted, and the tick after it runs.
func TestRunSkipsOverlappingTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		faults := faults.Faults{Market: faults.Market{Endpoints: map[string]inject.MethodFaults{
			market.EndpointLoansInfo: {Latency: 8 * time.Second}}}}
		w := newSimWorld(t, simOptions{faults: faults})
		w.writePolicy(t, "slow.yaml", `policies:
  - name: slow-loans
    kind: alert
    schedule: "@every 5s"
    select: { target: loans }
    when: loan.health < 0.01
    params: { severity: info, message: "loan {{.loan.address}} almost liquidatable" }
`)
		k := w.open(t, "")
		r := k.start(t)
		// Ticks at 5 (runs until 13), 10 (skipped), 15 (runs until 23), 20 (skipped).
		time.Sleep(24 * time.Second)
		synctest.Wait()
		if got := k.runs("slow-loans", "ok"); got != 2 {
			t.Errorf("runs = %v, want 2", got)
		}
		if got := testutil.ToFloat64(k.metrics.RunsSkipped.WithLabelValues("slow-loans", "overlap")); got != 2 {
			t.Errorf("overlap skips = %v, want 2", got)
		}
		if got := w.net.countPath("/loans/info"); got != 2 {
			t.Errorf("loans reads = %d, want one per run that ran", got)
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// reloadPolicies are three policy files for the reload test: a rebalance
// that must see the position out of range for 30 s before acting, an alert
// on loans every 10 s and an alert on vaults every 10 s.
const (
	reloadRebalance = `policies:
  - name: slow-rebalance
    kind: rebalance
    schedule: "@every 5s"
    for: 30s
    params: { width_pct: 7, trigger: out_of_range, slippage_bps: 50 }
`
	reloadLoansAlert = `policies:
  - name: loans-alert
    kind: alert
    schedule: "@every %s"
    select: { target: loans }
    when: loan.health < 0.01
    params: { severity: info, message: "loan {{.loan.address}} almost liquidatable" }
`
	reloadVaultsAlert = `policies:
  - name: vaults-alert
    kind: alert
    schedule: "@every 10s"
    select: { target: vaults }
    when: vault.total_apy < 0.0001
    params: { severity: info, message: "vault {{.vault.address}} pays nothing" }
`
)

// TestReloadKeepsStateAndAppliesChanges reloads at 32 s with the rebalance
// unchanged, the loans alert rescheduled from every 10 s to every 5 s and
// the vaults alert removed. The rebalance keeps the time since which its
// position has been out of range (20 s), so it acts at 50 s as if no reload
// had happened; the loans alert runs on its new schedule; the vaults alert
// never runs again and leaves /status.
func TestReloadKeepsStateAndAppliesChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.writePolicy(t, "a.yaml", reloadRebalance)
		w.writePolicy(t, "b.yaml", strings.Replace(reloadLoansAlert, "%s", "10s", 1))
		w.writePolicy(t, "c.yaml", reloadVaultsAlert)
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(32 * time.Second)
		synctest.Wait()
		vaultReads := w.net.countPath("/lending_vaults/info")
		if vaultReads != 3 {
			t.Errorf("vaults alert read vaults %d times by 32 s, want 3", vaultReads)
		}
		w.writePolicy(t, "b.yaml", strings.Replace(reloadLoansAlert, "%s", "5s", 1))
		w.removePolicy(t, "c.yaml")
		r.reloadNow()
		if got := testutil.ToFloat64(k.metrics.Reloads.WithLabelValues("ok")); got != 1 {
			t.Errorf("ok reloads = %v", got)
		}
		time.Sleep(21 * time.Second) // until 53 s
		synctest.Wait()
		acts := k.actionsOf(t, "slow-rebalance")
		if len(acts) != 1 || acts[0].State != journal.StateLanded {
			t.Fatalf("rebalance actions %+v, want one landed", acts)
		}
		// Had the reload reset its state, it would wait until 65 s.
		// The run observes from a walk that starts once the tick's readers have gathered.
		if at := acts[0].CreatedAt.Sub(r.started); at != 50*time.Second+gatherWindow {
			t.Errorf("rebalance acted %v in, want 50 s (out of range since 20 s, for: 30s) and the walk's gathering", at)
		}
		// Ticks at 10, 20, 30 on the old schedule, then 37, 42, 47, 52.
		if got := k.runs("loans-alert", "ok"); got != 7 {
			t.Errorf("loans alert ran %v times, want 7 (3 every 10 s, then 4 every 5 s)", got)
		}
		if got := w.net.countPath("/lending_vaults/info"); got != vaultReads {
			t.Errorf("the removed vaults alert read vaults %d more times", got-vaultReads)
		}
		if got := testutil.CollectAndCount(k.metrics.Runs, "keeper_policy_runs_total"); got != 2 {
			t.Errorf("%d run series, want 2 (the removed policy's deleted)", got)
		}
		if names := statusNames(t, k); strings.Join(names, ",") != "loans-alert,slow-rebalance" {
			t.Errorf("/status lists %v", names)
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// TestBadReloadKeepsRunningSet reloads with a broken policy file: the error
// is counted, and the running policies keep running unchanged.
func TestBadReloadKeepsRunningSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.writePolicy(t, "b.yaml", strings.Replace(reloadLoansAlert, "%s", "10s", 1))
		w.writePolicy(t, "c.yaml", reloadVaultsAlert)
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(12 * time.Second)
		synctest.Wait()
		w.writePolicy(t, "b.yaml", strings.Replace(reloadLoansAlert, "%s", "5s", 1))
		w.writePolicy(t, "c.yaml", "policies:\n  - name: vaults-alert\n    kind: alert\n    schedul: \"@every 10s\"\n")
		r.reloadNow()
		if e, ok := testutil.ToFloat64(k.metrics.Reloads.WithLabelValues("error")), testutil.ToFloat64(k.metrics.Reloads.WithLabelValues("ok")); e != 1 || ok != 0 {
			t.Errorf("reloads: %v errors, %v ok; want 1 and 0", e, ok)
		}
		time.Sleep(20 * time.Second) // until 32 s
		synctest.Wait()
		// Both still on every 10 s: ticks at 10, 20, 30.
		for _, p := range []string{"loans-alert", "vaults-alert"} {
			if got := k.runs(p, "ok"); got != 3 {
				t.Errorf("policy %s ran %v times, want 3 on its old schedule", p, got)
			}
		}
		if names := statusNames(t, k); strings.Join(names, ",") != "loans-alert,vaults-alert" {
			t.Errorf("/status lists %v", names)
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// statusNames are the policy names /status lists.
func statusNames(t *testing.T, k *simKeeper) []string {
	var out []string
	for _, p := range statusPolicies(t, k) {
		out = append(out, p.Name)
	}
	return out
}

// signal is closed the first time a simNet hook sees a matching call.
type signal struct {
	once sync.Once
	ch   chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

func (s *signal) fire() { s.once.Do(func() { close(s.ch) }) }

// TestStatusSaysWhatTheLastRunDid: /status's last run of an alert policy
// whose condition holds says it ran ok, how many loans it evaluated and
// that one alert fired.
func TestStatusSaysWhatTheLastRunDid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "alerts.yaml")
		k := w.open(t, "")
		r := k.start(t)
		time.Sleep(16 * time.Second) // SOL falls at 10 s: repay-me's health drops under 0.25
		synctest.Wait()
		for _, p := range statusPolicies(t, k) {
			if p.Name != "loan-health-low" {
				continue
			}
			if l := p.LastRun; l == nil || l.Outcome != "ok" || l.Evaluated < 2 || l.Actions["alert"] != 1 {
				t.Errorf("loan-health-low last run %+v, want ok, the wallet's loans evaluated and one alert", l)
			}
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}
