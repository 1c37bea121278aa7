package examples_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// soakSecond is one per-second look at the soak: the daemon's skip counters, and the CPU time the
// rest of the machine (every process but the daemon, the simulator and the test) used since the look
// before.
type soakSecond struct {
	at     time.Time
	laps   float64 // ticks skipped so far because the previous run still went on
	late   float64 // ticks fired late so far
	others int     // CPU ticks (1/100 s, all CPUs) of the rest of the machine since the previous look
}

// machineBusyTicks is how much CPU time other processes must take in a second for the machine to
// count as busy then: 20 ticks, 0.2 CPU-seconds, a tenth of this 2-core machine. On a quiet machine
// the rest (the kernel, idle sessions) takes under 10 ticks in nine seconds of ten (2026-11-26); a
// walk second of the soak's pass leaves its runs about 0.2 s of their second.
const machineBusyTicks = 20

// snapshotRereadMsg is the daemon's log message for a walk of loans read again because its pages
// carried different oracle snapshots (market/api.Client.LoanPages).
const snapshotRereadMsg = "Pages of a walk carry different oracle snapshots; reading it again"

// overrunCauses splits the ticks skipped after the warm-up (because a run overran) by what made the
// run overrun, and says how often the machine was busy.
type overrunCauses struct {
	// snapshot counts ticks whose overrunning run read its loans twice: the market pinned a new
	// oracle snapshot while the walk ran, and keeper refuses an observation of mixed snapshots.
	snapshot float64
	// machine counts ticks whose overrunning run shared the CPU with other processes.
	machine float64
	// keeper counts the rest: keeper's own.
	keeper float64
	// busy and seconds count the seconds after the warm-up with the machine busy, and all of them.
	busy, seconds int
}

// attributeOverruns applies the soak's rule to the looks from from on. The ticks skipped between two
// looks found runs of the tick a second before them still going, so such a run began at most a
// second before the earlier look and went on past it: a walk read again in that span, from a second
// before the earlier look to the later look, explains the skips; failing that, a busy machine in
// either second does.
func attributeOverruns(seconds []soakSecond, rereads []time.Time, from time.Time) overrunCauses {
	var c overrunCauses
	for i := 1; i < len(seconds); i++ {
		prev, s := seconds[i-1], seconds[i]
		if s.at.Before(from) {
			continue
		}
		c.seconds++
		if s.others >= machineBusyTicks {
			c.busy++
		}
		n := s.laps - prev.laps
		if n <= 0 {
			continue
		}
		since := prev.at.Add(-time.Second)
		switch {
		case slices.ContainsFunc(rereads, func(r time.Time) bool { return r.After(since) && !r.After(s.at) }):
			c.snapshot += n
		case s.others >= machineBusyTicks || prev.others >= machineBusyTicks:
			c.machine += n
		default:
			c.keeper += n
		}
	}
	return c
}

// snapshotRereads returns when the daemon's JSON log says it read a walk of loans again.
func snapshotRereads(log string) []time.Time {
	var out []time.Time
	for line := range strings.Lines(log) {
		if !strings.Contains(line, snapshotRereadMsg) {
			continue
		}
		var rec struct {
			Time time.Time `json:"time"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && !rec.Time.IsZero() {
			out = append(out, rec.Time)
		}
	}
	return out
}

// soakTimeline looks at the soak every second until the returned func is called, which returns the
// looks. With -soak.trace it also writes them, with the daemon's request figures and each process's
// CPU time, to timeline.tsv, names the other processes that took CPU time in others.log, and with
// -soak.flight makes both processes write their flight-recorder traces a few seconds after a tick
// was skipped after the warm-up (at most once a minute).
func soakTimeline(t *testing.T, start time.Time, keeper, sim int, metrics string) (stop func() []soakSecond) {
	t.Helper()
	var tsv, procs io.Writer = io.Discard, io.Discard
	if *soakTrace != "" {
		f, err := os.Create(filepath.Join(*soakTrace, "timeline.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.Create(filepath.Join(*soakTrace, "others.log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close(); g.Close() })
		tsv, procs = f, g
		fmt.Fprintln(tsv, "at\twall\truns\toverlap\tlate\tmarket_n\tmarket_s\tmarket_gt1s\tmarket_gt250ms\trpc_n\trpc_s\trpc_gt1s\tkeeper_cpu_ticks\tsim_cpu_ticks\tmachine_busy_ticks\tothers_ticks")
	}
	self := os.Getpid()
	quit, done := make(chan struct{}), make(chan struct{})
	var seconds []soakSecond
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		busy0, own0 := machineTicks(), cpuTicks(keeper)+cpuTicks(sim)+cpuTicks(self)
		var byPID map[int]procTicks
		if *soakTrace != "" {
			byPID = processTicks()
		}
		var lastDump time.Time
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			resp, err := http.Get(metrics)
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			e := string(b)
			k, sm := cpuTicks(keeper), cpuTicks(sim)
			busy, own := machineTicks(), k+sm+cpuTicks(self)
			s := soakSecond{at: time.Now(), laps: sumSeries(e, "keeper_policy_runs_skipped_total", `reason="overlap"`),
				late: sumSeries(e, "keeper_policy_runs_skipped_total", `reason="late"`), others: max(0, (busy-busy0)-(own-own0))}
			busy0, own0 = busy, own
			if n := len(seconds); n > 0 && s.laps > seconds[n-1].laps && *soakFlight && time.Since(start) > *soakWarmUp && time.Since(lastDump) > time.Minute {
				lastDump = time.Now()
				time.AfterFunc(4*time.Second, func() { signalAll(syscall.SIGUSR1, keeper, sim) })
			}
			seconds = append(seconds, s)
			if *soakTrace == "" {
				continue
			}
			mn, rn := sumSeries(e, "keeper_market_request_duration_seconds_count"), sumSeries(e, "keeper_rpc_request_duration_seconds_count")
			fmt.Fprintf(tsv, "%.1f\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.3f\t%.0f\t%.0f\t%.0f\t%.3f\t%.0f\t%d\t%d\t%d\t%d\n",
				s.at.Sub(start).Seconds(), s.at.UTC().Format("15:04:05.000"), sumSeries(e, "keeper_policy_runs_total"), s.laps, s.late,
				mn, sumSeries(e, "keeper_market_request_duration_seconds_sum"),
				mn-sumSeries(e, "keeper_market_request_duration_seconds_bucket", `le="1"`),
				mn-sumSeries(e, "keeper_market_request_duration_seconds_bucket", `le="0.25"`),
				rn, sumSeries(e, "keeper_rpc_request_duration_seconds_sum"),
				rn-sumSeries(e, "keeper_rpc_request_duration_seconds_bucket", `le="1"`), k, sm, busy, s.others)
			now := processTicks()
			var others []string
			for pid, p := range now {
				if d := p.ticks - byPID[pid].ticks; d >= 10 && pid != keeper && pid != sim && pid != self {
					others = append(others, fmt.Sprintf("%d ticks pid %d %.120s", d, pid, p.cmd))
				}
			}
			byPID = now
			if len(others) > 0 {
				fmt.Fprintf(procs, "%s: %s\n", s.at.UTC().Format("15:04:05"), strings.Join(others, " | "))
			}
		}
	}()
	return func() []soakSecond {
		close(quit)
		<-done
		return seconds
	}
}

// signalAll sends sig to each process of pids.
func signalAll(sig os.Signal, pids ...int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(sig)
		}
	}
}

// procTicks is a process's CPU time so far and its command line.
type procTicks struct {
	ticks int
	cmd   string
}

// processTicks reads the CPU time of every process from /proc.
func processTicks() map[int]procTicks {
	out := map[int]procTicks{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if n := cpuTicks(pid); n >= 0 {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			out[pid] = procTicks{ticks: n, cmd: strings.ReplaceAll(string(cmd), "\x00", " ")}
		}
	}
	return out
}

// machineTicks reads the machine's busy CPU time so far (all CPUs; idle and iowait left out), in
// ticks, from /proc/stat.
func machineTicks() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	busy := 0
	for i, v := range f[1:min(len(f), 8)] { // user nice system idle iowait irq softirq
		if n, err := strconv.Atoi(v); err == nil && i != 3 && i != 4 {
			busy += n
		}
	}
	return busy
}

// cpuTicks is a process's user and system CPU time in ticks, from /proc; 0 once it is gone.
func cpuTicks(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}
