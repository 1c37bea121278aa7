package examples_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The soak test runs only when asked: it takes wall-clock minutes.
var (
	soakFor       = flag.Duration("soak", 0, "run TestE2ESoak for this long (the reliability figure uses 10m; give go test a -timeout above it); 0 skips it")
	soakLoans     = flag.Int("soak.loans", 10_000, "loans of the soak scenario (the wallet's)")
	soakPositions = flag.Int("soak.positions", 1_000, "CLMM collateral positions of the soak scenario, each on its own loan")
	soakPolicies  = flag.Int("soak.policies", 50, "policies of the soak run, all on a 1-second schedule")
	soakWarmUp    = flag.Duration("soak.warmup", 2*time.Minute, "how long the soak waits before RSS must stay flat")
	soakTrace     = flag.String("soak.trace", "", "directory for a per-second timeline of the soak, the CPU time of other processes and both processes' logs")
	soakFlight    = flag.Bool("soak.flight", false, "with -soak.trace: run both processes under the flight recorder and write their traces a few seconds after an overrun (at most one a minute)")
)

// soakSample is one look at the running daemon.
type soakSample struct {
	at          time.Duration
	rssKB       int
	late, laps  float64 // ticks fired late, ticks skipped because the previous run went on
	runs, fails float64 // runs finished, runs that ended in error
	journal     int64   // bytes of the journal and its write-ahead log
	repays      float64 // repays landed
}

// TestE2ESoak runs `keeper run` with *soakPolicies policies on @every 1s against `keeper sim`
// (real clock) serving *soakLoans loans and *soakPositions positions, for *soakFor, sampling the
// daemon every 10 s (and every second for the skip counters and the machine's CPU time). It
// asserts: every run succeeded; after the warm-up no tick fired late, none was skipped because a
// run overran unless the market or the machine made it overrun (attributeOverruns), the machine
// was quiet in at least half of the seconds, and RSS stays within 10 % of its value then; the
// journal stays small (a few actions land, the rest decide nothing). Two repay policies select
// the same loans, so each repay is also a test of their claim on the loan.
func TestE2ESoak(t *testing.T) {
	if *soakFor == 0 {
		t.Skip("the soak runs only with -soak=DURATION, e.g. go test ./examples -run TestE2ESoak -soak=10m -timeout 30m")
	}
	needBinary(t)
	if *soakTrace != "" {
		if err := os.MkdirAll(*soakTrace, 0o755); err != nil {
			t.Fatal(err)
		}
		if *soakFlight {
			t.Setenv("KEEPER_FLIGHT_RECORDER", *soakTrace)
		}
	}
	s := startSimWith(t, "--control", "--scenario", soakScenario(t, *soakLoans, *soakPositions))
	w := newWorkspace(t, s)
	port := freePort(t)
	cfg := w.configEdited(t, "soak", soakPolicyFiles(t, *soakPolicies), func(cfg map[string]any) {
		section(cfg, "http")["listen"] = fmt.Sprintf("127.0.0.1:%d", port)
		section(cfg, "market")["rate_limit"] = map[string]any{"rps": 1000, "burst": 1000}
		section(cfg, "chain")["rate_limit"] = map[string]any{"rps": 1000, "burst": 1000}
	})
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json", "--log-level", "warn")
	metrics := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	var samples []soakSample
	start := time.Now()
	stopTimeline := soakTimeline(t, start, d.cmd.Process.Pid, s.proc.cmd.Process.Pid, metrics)
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for range tick.C {
		sm := sampleDaemon(t, d.cmd.Process.Pid, metrics, filepath.Join(w.dir, "keeper.db"))
		sm.at = time.Since(start)
		samples = append(samples, sm)
		t.Logf("%5.0fs rss %6d KB, runs %6.0f (%.0f failed), late %.0f, overlapped %.0f, repays %.0f, journal %d KB",
			sm.at.Seconds(), sm.rssKB, sm.runs, sm.fails, sm.late, sm.laps, sm.repays, sm.journal/1024)
		if sm.at >= *soakFor {
			break
		}
	}
	seconds := stopTimeline()
	if code := d.stop(t); code != 0 {
		t.Errorf("keeper run exited %d", code)
	}
	if *soakTrace != "" {
		for name, text := range map[string]string{"keeper.log": d.stderr.String(), "sim.log": s.proc.stderr.String()} {
			if err := os.WriteFile(filepath.Join(*soakTrace, name), []byte(text), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	skipped := 0
	for line := range strings.Lines(d.stderr.String()) {
		switch {
		case strings.Contains(line, "Skipping tick: previous run still in progress"):
			skipped++ // counted, and attributed, below
		case strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`):
			t.Logf("daemon: %.600s", line)
		}
	}
	t.Logf("daemon: %d ticks skipped because the previous run still went on (in all)", skipped)
	checkSoak(t, samples, attributeOverruns(seconds, snapshotRereads(d.stderr.String()), start.Add(*soakWarmUp)))
}

// checkSoak applies TestE2ESoak's assertions to its samples, and to the causes of the ticks skipped
// after the warm-up.
func checkSoak(t *testing.T, samples []soakSample, causes overrunCauses) {
	t.Helper()
	last := samples[len(samples)-1]
	if last.fails != 0 {
		t.Errorf("%.0f of %.0f runs failed", last.fails, last.runs)
	}
	if want := float64(min(10, *soakLoans)); last.repays != want {
		t.Errorf("%.0f repays landed, want one for each of the %.0f loans under the trigger", last.repays, want)
	}
	i := slices.IndexFunc(samples, func(s soakSample) bool { return s.at >= *soakWarmUp })
	if i < 0 {
		t.Fatalf("the soak ended before its %s warm-up", *soakWarmUp)
	}
	// While actions land in the first seconds, a run on @every 1s outlasts
	// its interval and the next tick is skipped by design; after the
	// warm-up nothing acts and every tick must run on time, unless what
	// made its run overrun was not keeper (attributeOverruns).
	warm := samples[i]
	if late := last.late - warm.late; late != 0 {
		t.Errorf("after the warm-up %.0f ticks fired late", late)
	}
	t.Logf("after the warm-up %.0f ticks were skipped because a run overran (%.0f from the first 10-second look after it): %.0f while the market moved its oracle snapshot during the run's walk of loans (read again), %.0f while other processes took the CPU, %.0f otherwise; the machine was busy in %d of %d seconds",
		causes.snapshot+causes.machine+causes.keeper, last.laps-warm.laps, causes.snapshot, causes.machine, causes.keeper, causes.busy, causes.seconds)
	if causes.keeper != 0 {
		t.Errorf("after the warm-up %.0f ticks were skipped because a run overran with neither a busy machine nor a walk read again to explain it", causes.keeper)
	}
	if causes.seconds == 0 {
		t.Error("the soak looked at the daemon in no second after the warm-up")
	}
	if 2*causes.busy > causes.seconds {
		t.Errorf("other processes took the CPU in %d of the %d seconds after the warm-up: this run cannot judge keeper's timing", causes.busy, causes.seconds)
	}
	// RSS saws with each garbage collection; flat means the peaks of the last third after the
	// warm-up are within 10 % of those of the first third.
	after := samples[i:]
	third := max(1, len(after)/3)
	early, late := peakRSS(after[:third]), peakRSS(after[len(after)-third:])
	if d := float64(late-early) / float64(early); d > 0.10 || d < -0.10 {
		t.Errorf("RSS peaks went from %d KB to %d KB (%+.1f %%) after the warm-up", early, late, 100*d)
	}
	if last.journal > 64<<20 {
		t.Errorf("journal grew to %d KB", last.journal/1024)
	}
}

// peakRSS is the highest RSS of samples.
func peakRSS(samples []soakSample) int {
	peak := 0
	for _, s := range samples {
		peak = max(peak, s.rssKB)
	}
	return peak
}

// sampleDaemon reads the daemon's RSS, its metrics and the journal's size.
func sampleDaemon(t *testing.T, pid int, metrics, journal string) soakSample {
	t.Helper()
	var sm soakSample
	sm.rssKB = rssKB(t, pid)
	resp, err := http.Get(metrics)
	if err != nil {
		t.Fatalf("scraping %s: %v", metrics, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	sm.late = sumSeries(string(body), "keeper_policy_runs_skipped_total", `reason="late"`)
	sm.laps = sumSeries(string(body), "keeper_policy_runs_skipped_total", `reason="overlap"`)
	sm.runs = sumSeries(string(body), "keeper_policy_runs_total")
	sm.fails = sumSeries(string(body), "keeper_policy_runs_total", `outcome="error"`) +
		sumSeries(string(body), "keeper_policy_runs_total", `outcome="panic"`)
	sm.repays = sumSeries(string(body), "keeper_actions_total", `kind="repay"`, `outcome="landed"`)
	for _, f := range []string{journal, journal + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			sm.journal += fi.Size()
		}
	}
	return sm
}

// sumSeries adds the values of a metric's series whose labels contain every one of labels.
func sumSeries(exposition, metric string, labels ...string) float64 {
	total := 0.0
	for line := range strings.Lines(exposition) {
		if !strings.HasPrefix(line, metric+"{") && !strings.HasPrefix(line, metric+" ") ||
			!all(labels, func(l string) bool { return strings.Contains(line, l) }) {
			continue
		}
		fields := strings.Fields(line)
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil {
			total += v
		}
	}
	return total
}

// all reports whether ok holds for every element of s.
func all[T any](s []T, ok func(T) bool) bool {
	return !slices.ContainsFunc(s, func(v T) bool { return !ok(v) })
}

// rssKB reads a process's resident set size from /proc.
func rssKB(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the daemon's RSS: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err == nil {
				return kb
			}
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// soakScenario writes a scenario of loans of the wallet (10 SOL against 500 USDC; the first ten
// against 1,100 USDC, under auto-repay's trigger) and of positions in ten SOL/USDC pools (five per
// dex, all in range), each position the collateral of its own loan.
func soakScenario(t *testing.T, loans, positions int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`name: soak
wallet: {sol: "100", tokens: {USDC: "1000000"}}
mints:
  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: SOL, decimals: 9, price: 150, address: So11111111111111111111111111111111111111112}
wallets:
  - {name: lender, fund: {sol: "2"}}
pools:
`)
	for p := range 10 {
		dex, spacing := "dex-a", 10
		if p%2 == 1 {
			dex, spacing = "dex-b", 64
		}
		fmt.Fprintf(&b, "  - {name: pool-%d, dex: %s, mint0: SOL, mint1: USDC, tick_spacing: %d, price: 150, liquidity: \"2000000000000\", reserves: {SOL: \"1000\", USDC: \"150000\"}}\n", p, dex, spacing)
	}
	b.WriteString("positions:\n")
	for i := range positions {
		fmt.Fprintf(&b, "  - {name: pos-%d, pool: pool-%d, lower_price: 120, upper_price: 180, liquidity: \"1000000000\"}\n", i, i%10)
	}
	b.WriteString(`strategies:
  - name: beta
    authority: lender
    principal_mint: USDC
    idle: "100000000"
    terms:
      - {collateral: SOL, ltv: 650000, lqt: 850000, apys: {30d: 95000}}
loans:
`)
	for i := range loans {
		principal := "500"
		if i < 10 {
			principal = "1100"
		}
		fmt.Fprintf(&b, "  - {name: l%d, borrower: $wallet, started: \"-1d\", collateral: [{mint: SOL, amount: \"10\"}], ledgers: [{strategy: beta, principal: %q, term: 30d}]}\n", i, principal)
	}
	for i := range positions {
		fmt.Fprintf(&b, "  - {name: p%d, borrower: $wallet, started: \"-1d\", collateral: [{position: pos-%d}], ledgers: [{strategy: beta, principal: \"1\", term: 30d}]}\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "soak.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// soakPolicyFiles writes n policies on @every 1s: one auto-repay, rebalance and fee-claim policy
// per ten, the rest loan-health alerts at thresholds from 0.05 to 0.25.
func soakPolicyFiles(t *testing.T, n int) []string {
	t.Helper()
	var b strings.Builder
	b.WriteString("policies:\n")
	for i := range n {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, `  - name: repay-%d
    kind: repay
    schedule: "@every 1s"
    select: { principal_mints: [4LZC4BmvoqqE2PGbnk2cYiJtDCpVcmyRA4kkLQPSAvo4] }
    params: { trigger_health: 0.2, target_health: 0.3, min_amount: 1000000, max_amount: 500000000 }
    limits: { cooldown: 10m }
    submit: { mode: rpc }
`, i)
		case 1:
			fmt.Fprintf(&b, "  - name: rebalance-%d\n    kind: rebalance\n    schedule: \"@every 1s\"\n    params: { width_pct: 7, trigger: out_of_range, slippage_bps: 50 }\n    limits: { cooldown: 10m }\n", i)
		case 2:
			fmt.Fprintf(&b, "  - name: claim-fees-%d\n    kind: claim-fees\n    schedule: \"@every 1s\"\n    params: { min_fees_1: 10000000 }\n    limits: { cooldown: 10m }\n", i)
		default:
			fmt.Fprintf(&b, "  - name: health-%d\n    kind: alert\n    schedule: \"@every 1s\"\n    select: { target: loans }\n    when: loan.is_active && loan.health < %.3f\n    params: { severity: warning, message: \"loan {{.loan.address}} is low\" }\n", i, 0.05+0.2*float64(i)/float64(n))
		}
	}
	path := filepath.Join(t.TempDir(), "soak.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{path}
}
