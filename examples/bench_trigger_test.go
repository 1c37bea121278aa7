package examples_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkE2ETriggerReaction measures how fast keeper repays a loan after the price update that
// makes it cross its trigger, against `keeper sim` as a separate process on its real clock, with
// the same policy (examples/triggers/trigger-repay.yaml) run two ways side by side:
//
//   - trigger: scheduled hourly, run by its price trigger (debounce 400ms);
//   - schedule=30s: no trigger, `@every 30s`, the crash at a random phase of the schedule.
//
// Each iteration is a fresh simulator whose scenario moves SOL by -20 % at slot N (the loan's
// health drops from 0.29 to 0.12, under the trigger health 0.2) and a fresh daemon. Reported, over
// the iterations: the mean and the worst (p99 of so few is the worst) of slots from N to the slot
// the repay landed in, and of milliseconds from the start of slot N to the repay's execution.
//
// Run: go test ./examples -run '^$' -bench BenchmarkE2ETriggerReaction -benchtime 10x
// (the schedule variant waits up to 30 s an iteration).
func BenchmarkE2ETriggerReaction(b *testing.B) {
	needBinary(b)
	for _, v := range []struct{ name, schedule, triggers string }{
		{"trigger", `"@every 1h"`, "    triggers:\n      debounce: 400ms\n      price:\n        - {mint: So11111111111111111111111111111111111111112, change: 0.03}\n"},
		{"schedule=30s", `"@every 30s"`, ""},
	} {
		b.Run(v.name, func(b *testing.B) {
			var slots []float64
			var ms []float64
			for range b.N {
				s, m := reactOnce(b, v.schedule, v.triggers)
				slots, ms = append(slots, s), append(ms, m)
			}
			b.ReportMetric(mean(slots), "mean-slots")
			b.ReportMetric(slices.Max(slots), "worst-slots")
			b.ReportMetric(mean(ms), "mean-ms")
			b.ReportMetric(slices.Max(ms), "worst-ms")
		})
	}
}

// reactOnce runs one crash against a fresh simulator and daemon and returns the repay's reaction
// in slots and in milliseconds.
func reactOnce(b *testing.B, schedule, triggers string) (slots, ms float64) {
	b.StopTimer()
	defer b.StartTimer()
	dir := b.TempDir()
	crash := 15 + rand.IntN(76) // 6 s to 36 s after the start: any phase of a 30 s schedule
	if triggers != "" {
		crash = 15
	}
	scenario := filepath.Join(dir, "crash.yaml")
	events := fmt.Sprintf("  - at_slot: %d\n    price_move: {mint: SOL, by: -0.2}\n", crash)
	if err := os.WriteFile(scenario, fmt.Appendf(nil, triggerScenario, events), 0o644); err != nil {
		b.Fatal(err)
	}
	s := startSimWith(b, "--control", "--scenario", scenario)
	src, err := os.ReadFile("triggers/trigger-repay.yaml")
	if err != nil {
		b.Fatal(err)
	}
	policy := strings.Replace(string(src), `schedule: "@every 10m"`, "schedule: "+schedule, 1)
	start, end := strings.Index(policy, "    triggers:\n"), strings.Index(policy, "    select:\n")
	policy = policy[:start] + triggers + policy[end:]
	policyFile := filepath.Join(dir, "trigger-repay.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o644); err != nil {
		b.Fatal(err)
	}
	w := newWorkspace(b, s)
	cfg := w.configEdited(b, "react", []string{policyFile}, func(c map[string]any) { delete(section(c, "chain"), "poll") })
	d := startKeeper(b, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	select {
	case <-d.stderr.lineContaining(`"msg":"Action landed"`):
	case <-d.exited:
		b.Fatalf("keeper exited:\n%s", d.stderr.String())
	case <-time.After(2 * time.Minute):
		b.Fatalf("no repay within 2 minutes:\n%s", d.stderr.String())
	}
	d.stop(b)
	st := s.state(b)
	if len(st.Signed) != 1 || st.Signed[0].Err != "" {
		b.Fatalf("signed %+v, want one landed repay", st.Signed)
	}
	landed := st.Signed[0]
	crashAt := st.Now.Add(-time.Duration(st.Elapsed * float64(time.Second))).Add(time.Duration(crash) * 400 * time.Millisecond)
	return float64(landed.Slot) - float64(crash), float64(landed.LandedAt.Sub(crashAt).Milliseconds())
}

// mean is the arithmetic mean of vs.
func mean(vs []float64) float64 {
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}
