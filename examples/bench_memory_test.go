package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runMemoryBin is the keeper binary BenchmarkE2ERunMemory measures (the simulator is always the
// tree's): another build, to compare two versions against one simulator in one run.
var runMemoryBin = flag.String("runmem.bin", "", "keeper binary measured by BenchmarkE2ERunMemory (default: the tree's)")

// runMemoryScenario writes a scenario of n healthy loans of the wallet (10 SOL against 500 USDC,
// above auto-repay's trigger) and returns its path.
func runMemoryScenario(b *testing.B, n int) string {
	b.Helper()
	var sb strings.Builder
	sb.WriteString(lendingScenario("run-memory", "100", "1000000", "100000000", false))
	for i := range n {
		fmt.Fprintf(&sb, "  - {name: l%d, borrower: $wallet, started: \"-1d\", collateral: [{mint: SOL, amount: \"10\"}], ledgers: [{strategy: beta, principal: \"500\", term: 30d}]}\n", i)
	}
	path := filepath.Join(b.TempDir(), "run-memory.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkE2ERunMemory measures the peak resident memory of one `keeper run --once` of the
// auto-repay example over 1 / 1,000 / 10,000 / 100,000 healthy loans of the wallet (it reads and
// evaluates them all and acts on none), served by `keeper sim` in another process (so that the
// simulator's memory is not counted) with its clock stopped (so that it values the loans once, not
// once a second), with no injected latency and client rate limits high enough not to pace the walk.
// Reported per run:
//
//   - peak-MiB: the keeper process's peak resident set (getrusage's ru_maxrss);
//   - above-1-MiB: peak-MiB less the same figure over one loan measured in the same benchmark run
//     (the 1-loan case runs first), i.e. what the loans cost on top of an otherwise idle run;
//   - cpu-s: the keeper process's CPU time (user and system);
//   - wall-s: the run's wall time.
//
// Run: go test ./examples -run '^$' -bench BenchmarkE2ERunMemory -benchtime 1x -timeout 30m
// [-runmem.bin OTHER_KEEPER_BINARY]
func BenchmarkE2ERunMemory(b *testing.B) {
	needBinary(b)
	var idle float64
	for _, n := range []int{1, 1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("loans=%d", n), func(b *testing.B) {
			b.StopTimer()
			s := startSimWaiting(b, 10*time.Minute, "--manual-clock", "--scenario", runMemoryScenario(b, n))
			var peak, cpu, wall, wrapper float64
			for range b.N {
				w := newWorkspace(b, s)
				cfg := w.configEdited(b, "memory", []string{autoRepay}, func(c map[string]any) {
					section(c, "market")["rate_limit"] = map[string]any{"rps": 100000, "burst": 100000}
					section(c, "chain")["rate_limit"] = map[string]any{"rps": 100000, "burst": 100000}
				})
				start := time.Now()
				b.StartTimer()
				u := runMeasured(b, w.dir, "run", "--once", "--config", cfg)
				b.StopTimer()
				wall += time.Since(start).Seconds()
				peak += float64(u.MaxRSSKiB) / 1024 // KiB on Linux
				cpu += time.Duration(u.UserNanos + u.SystemNanos).Seconds()
				wrapper = max(wrapper, float64(u.WrapperRSSKiB)/1024)
			}
			peak /= float64(b.N)
			if n == 1 {
				idle = peak
			}
			b.ReportMetric(peak, "peak-MiB")
			if idle > 0 {
				b.ReportMetric(peak-idle, "above-1-MiB")
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s")
			b.ReportMetric(wrapper, "wrapper-MiB")
			b.ReportMetric(wall/float64(b.N), "wall-s")
		})
	}
}

// startSimWaiting is startSimWith, waiting up to wait for the simulator to start: loading a
// scenario of 100,000 loans takes longer than startTimeout on a busy machine.
func startSimWaiting(b *testing.B, wait time.Duration, args ...string) *simProc {
	b.Helper()
	dir := b.TempDir()
	kp := filepath.Join(dir, "operator.json")
	out := &syncBuffer{}
	d := startKeeper(b, dir, out, append([]string{"sim", "--listen", "127.0.0.1:0", "--keypair", kp}, args...)...)
	select {
	case <-out.lineReady("simulator control "):
	case <-d.exited:
		b.Fatalf("keeper sim exited (%v)\nstdout:\n%s\nstderr:\n%s", d.err, out.String(), d.stderr.String())
	case <-time.After(wait):
		b.Fatalf("keeper sim printed no control line within %s\nstdout:\n%s", wait, out.String())
	}
	s := &simProc{keypair: kp, named: map[string]string{}, client: &http.Client{}, proc: d}
	if err := s.parse(out.String()); err != nil {
		b.Fatalf("keeper sim output: %v\n%s", err, out.String())
	}
	return s
}

// runMeasured runs keeper with args in dir through the rusage wrapper (runForRusage), requires it to
// exit 0 and returns keeper's resource usage.
func runMeasured(b *testing.B, dir string, args ...string) childUsage {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	usage := filepath.Join(b.TempDir(), "rusage.json")
	var out, errb bytes.Buffer
	cmd := keeperCmdWith(ctx, procOptions{bin: *runMemoryBin, env: []string{rusageEnv + "=" + usage}}, dir, args...)
	cmd.Path, cmd.Args = self, append([]string{self}, cmd.Args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("keeper %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	raw, err := os.ReadFile(usage)
	var u childUsage
	if err == nil {
		err = json.Unmarshal(raw, &u)
	}
	if err != nil || u.MaxRSSKiB == 0 {
		b.Fatalf("no resource usage of the keeper process (%v)", err)
	}
	return u
}
