package keeper

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/signer"
)

// startedHandler signals when keeper logs that it has started.
type startedHandler struct {
	slog.Handler
	once    sync.Once
	started chan struct{}
}

func (h *startedHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *startedHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "keeper started" {
		h.once.Do(func() { close(h.started) })
	}
	return nil
}

func (h *startedHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *startedHandler) WithGroup(string) slog.Handler      { return h }

// BenchmarkIdleDaemon20Policies starts the daemon as `keeper run` would
// (clients built from config, a journal file, the operations endpoint on a
// local port) with 20 policies loaded whose next tick is an hour away, lets
// it reach its idle loop, and reports the Go heap, all memory the Go runtime
// holds, and the process's resident set, with the resident set before the
// first daemon started. The resident set is the whole benchmark process (test
// binary and framework included), so it bounds the daemon's from above; run
// with -benchtime=1x in a fresh process, as later iterations inherit the
// earlier ones' freed pages.
func BenchmarkIdleDaemon20Policies(b *testing.B) {
	var heap, total, rss, goroutines float64
	debug.FreeOSMemory()
	before := vmRSS(b)
	for range b.N {
		b.StopTimer()
		k, cleanup := idleKeeper(b, 20)
		h := k.logger.Handler().(*startedHandler)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		b.StartTimer()
		go func() { done <- k.Run(ctx, nil) }()
		<-h.started
		b.StopTimer()
		debug.FreeOSMemory() // collect, and return what is free to the OS as an idle daemon's scavenger would
		heap, total, goroutines = memStats()
		rss = vmRSS(b)
		cancel()
		if err := <-done; err != nil {
			b.Fatalf("Run: %v", err)
		}
		if got := testutil.ToFloat64(k.metrics.PoliciesLoaded); got != 20 {
			b.Fatalf("%v policies loaded, want 20", got)
		}
		cleanup()
		b.StartTimer()
	}
	b.ReportMetric(heap/(1<<20), "heap-MB")
	b.ReportMetric(total/(1<<20), "go-total-MB")
	b.ReportMetric(rss/(1<<20), "rss-MB")
	b.ReportMetric(before/(1<<20), "rss-before-MB")
	b.ReportMetric(goroutines, "goroutines")
}

// idleKeeper builds a keeper from a config with n policies scheduled hourly.
func idleKeeper(b *testing.B, n int) (*Keeper, func()) {
	b.Helper()
	dir := b.TempDir()
	pdir := filepath.Join(dir, "policies")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		b.Fatal(err)
	}
	writeIdlePolicies(b, pdir, n)
	text := strings.Replace(simConfigYAML, `journal: { dsn: "sqlite::memory:" }`, `journal: { dsn: "sqlite:keeper.db" }`, 1)
	text = strings.Replace(text, `http: { listen: "" }`, `http: { listen: "127.0.0.1:0" }`, 1)
	cfg, err := config.Load(filepath.Join(dir, "keeper.yaml"), dir, []byte(text), func(string) (string, bool) { return "", false })
	if err != nil {
		b.Fatal(err)
	}
	key, err := signer.Generate()
	if err != nil {
		b.Fatal(err)
	}
	armed, err := key.WithGuard(GuardConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	h := &startedHandler{started: make(chan struct{})}
	k, err := New(Options{Config: cfg, Signer: armed, Logger: slog.New(h)})
	if err != nil {
		b.Fatal(err)
	}
	return k, func() { _ = k.Close() }
}

// policyNameLine matches the name line of a policy in an example file.
var policyNameLine = regexp.MustCompile(`(?m)^  - name: ([a-z0-9-]+)$`)

// writeIdlePolicies writes n policies, copies of the examples renamed and
// rescheduled hourly.
func writeIdlePolicies(b *testing.B, dir string, n int) {
	b.Helper()
	written := 0
	for copyNo := 0; written < n; copyNo++ {
		for _, f := range exampleFiles {
			data, err := os.ReadFile(filepath.Join("..", "examples", "policies", f))
			if err != nil {
				b.Fatal(err)
			}
			text := policyNameLine.ReplaceAllString(string(data), "  - name: ${1}-"+strconv.Itoa(copyNo))
			text = strings.ReplaceAll(text, `schedule: "@every 5s"`, `schedule: "@hourly"`)
			if got := len(policyNameLine.FindAllString(text, -1)); written+got > n {
				continue // keep exactly n: skip files that would overshoot
			}
			written += len(policyNameLine.FindAllString(text, -1))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%s", copyNo, f)), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			if written == n {
				return
			}
		}
	}
}

// memStats reads the live heap, all memory the Go runtime holds, and the
// goroutine count.
func memStats() (heap, total, goroutines float64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/sched/goroutines:goroutines"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64()), float64(s[1].Value.Uint64()), float64(s[2].Value.Uint64())
}

// vmRSS reads the process's resident set size from /proc/self/status.
func vmRSS(b *testing.B) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb * 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
