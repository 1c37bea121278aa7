package keeper

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/keeper-project/keeper/internal/wait"
)

// runInfo identifies one policy run.
type runInfo struct {
	Policy string
	ID     string    // unique per run, in every log line of the run
	Tick   time.Time // when cron fired (or a trigger's run started), UTC
	// Triggered marks a run a trigger started outside the schedule.
	Triggered bool
}

// runFunc is one policy run; ctx carries the run's deadline.
type runFunc func(ctx context.Context, run runInfo) error

// scheduler fires policy runs on their cron schedules (UTC), each at a
// stable per-policy offset within its jitter, skipping a tick while the
// previous run of the same policy still runs, and turning a panic into a
// counted error. It is safe for concurrent use.
type scheduler struct {
	cron    *cron.Cron
	root    context.Context
	logger  *slog.Logger
	metrics *Metrics
	seq     atomic.Uint64
	// triggered tracks the runs triggers start (cron tracks its own);
	// stopped refuses new ones once the scheduler stops.
	triggered sync.WaitGroup
	stopped   atomic.Bool

	mu      sync.Mutex
	entries map[string]*entry
}

// entry is one scheduled policy.
type entry struct {
	s        *scheduler
	id       cron.EntryID
	policy   string
	schedule cron.Schedule
	delay    time.Duration // after each tick: the policy's stable jitter offset
	expected time.Time     // the tick cron should fire next; guarded by running
	// due mirrors expected (unix nanoseconds) for stalled, which reads it
	// without the running guard.
	due     atomic.Int64
	fn      runFunc
	running atomic.Bool
	// again asks for a triggered run as soon as the running one ends.
	again atomic.Bool
	// skipped is the last tick skipped because a run was in progress (unix
	// nanoseconds; 0 for none since the last run began): that slot had its
	// tick, so it is neither late nor missed.
	skipped atomic.Int64
}

// cronParser accepts 5-field specs and descriptors such as @hourly and @every 30s.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func newScheduler(root context.Context, logger *slog.Logger, m *Metrics) *scheduler {
	return &scheduler{
		cron:    cron.New(cron.WithLocation(time.UTC), cron.WithParser(cronParser)),
		root:    root,
		logger:  logger,
		metrics: m,
		entries: map[string]*entry{},
	}
}

// add schedules fn for policy, each run delay after its tick (the policy's
// jitter offset, policies.Policy.JitterDelay); a policy already scheduled
// is replaced.
func (s *scheduler) add(policy, spec string, delay time.Duration, fn runFunc) error {
	sched, err := cronParser.Parse(spec)
	if err != nil {
		return fmt.Errorf("policy %s: schedule %q: %w", policy, spec, err)
	}
	s.remove(policy)
	e := &entry{s: s, policy: policy, schedule: sched, delay: delay, fn: fn, expected: sched.Next(time.Now().UTC())}
	e.due.Store(e.expected.UnixNano())
	s.mu.Lock()
	defer s.mu.Unlock()
	e.id = s.cron.Schedule(sched, e)
	s.entries[policy] = e
	first := sched.Next(time.Now().UTC())
	s.metrics.PolicyInterval.WithLabelValues(policy).Set(sched.Next(first).Sub(first).Seconds())
	return nil
}

// remove unschedules policy; a run in progress finishes.
func (s *scheduler) remove(policy string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[policy]; ok {
		s.cron.Remove(e.id)
		delete(s.entries, policy)
	}
}

// next returns the next tick of policy, or zero when it is not scheduled
// (or s is nil).
func (s *scheduler) next(policy string) time.Time {
	if s == nil {
		return time.Time{}
	}
	s.mu.Lock()
	e, ok := s.entries[policy]
	s.mu.Unlock()
	if !ok {
		return time.Time{}
	}
	return s.cron.Entry(e.id).Next
}

func (s *scheduler) start() { s.cron.Start() }

// stop stops firing new runs and returns a context done when the runs in
// progress (scheduled and triggered) have returned.
func (s *scheduler) stop() context.Context {
	s.mu.Lock()
	s.stopped.Store(true)
	s.mu.Unlock()
	cronDone := s.cron.Stop()
	ctx, done := context.WithCancel(context.Background())
	go func() {
		<-cronDone.Done()
		s.triggered.Wait()
		done()
	}()
	return ctx
}

// fire starts a triggered run of policy now, outside its schedule, under
// the same overlap rule as its ticks: while a run of the policy is in
// progress, the triggered run starts when it ends.
func (s *scheduler) fire(policy string) {
	s.mu.Lock()
	e := s.entries[policy]
	s.mu.Unlock()
	if e != nil {
		e.fire()
	}
}

// fire starts a triggered run unless one of the policy runs, in which case
// it asks for one after it.
func (e *entry) fire() {
	if !e.running.CompareAndSwap(false, true) {
		e.again.Store(true)
		return
	}
	s := e.s
	s.mu.Lock() // orders Add before stop's Wait
	if s.stopped.Load() {
		s.mu.Unlock()
		e.running.Store(false)
		return
	}
	s.triggered.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.triggered.Done()
		defer e.done()
		tick := time.Now().UTC()
		_ = s.runOnce(runInfo{Policy: e.policy, Tick: tick, Triggered: true}, e.deadline(tick), e.fn)
	}()
}

// done ends a run: the next tick or trigger may start one, and a trigger
// that fired during the run starts its run now.
func (e *entry) done() {
	e.running.Store(false)
	if e.again.Swap(false) {
		e.fire()
	}
}

// shutdown stops firing new runs and waits for the runs in progress up to
// timeout; then it cancels them with stopRuns and waits for them to return.
func (s *scheduler) shutdown(timeout time.Duration, stopRuns context.CancelFunc) {
	s.logger.Info("Stopping: no new runs; waiting for runs in progress", "timeout", timeout)
	done := s.stop()
	select {
	case <-done.Done():
	case <-time.After(timeout):
		s.logger.Warn("Runs still in progress at the shutdown deadline; cancelling (recovery settles them on start)")
		stopRuns()
		<-done.Done()
	}
}

// stallAfter is how long past its slot a tick may not have fired before the
// scheduler counts as stalled (a wedged process is not pinging systemd's
// watchdog, which then restarts it).
const stallAfter = time.Minute

// stalled names a policy whose tick is more than stallAfter overdue while
// no run of it is in progress: cron stopped firing. "" when all is well.
func (s *scheduler) stalled(now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, e := range s.entries {
		if due := time.Unix(0, e.due.Load()); !e.running.Load() && now.Sub(due) > stallAfter {
			return name
		}
	}
	return ""
}

// Run is called by cron at each tick.
func (e *entry) Run() {
	tick := time.Now().UTC()
	if !e.running.CompareAndSwap(false, true) {
		e.skipped.Store(tick.UnixNano())
		e.s.metrics.RunsSkipped.WithLabelValues(e.policy, "overlap").Inc()
		e.s.logger.Warn("Skipping tick: previous run still in progress", "policy", e.policy)
		return
	}
	defer e.done()
	e.checkLate(tick)
	if !wait.For(e.s.root, e.delay) {
		return
	}
	e.s.runOnce(runInfo{Policy: e.policy, Tick: tick}, e.deadline(tick), e.fn)
}

// lateAfter is how far past its slot a tick may fire before it counts as late.
const lateAfter = 2 * time.Second

// checkLate counts a tick that fired late (the process was suspended or
// starved) and the slots that passed without one, like Prometheus'
// missed rule-group iterations, then expects the next slot.
func (e *entry) checkLate(tick time.Time) {
	expected := e.expected
	if s := e.skipped.Swap(0); s != 0 {
		// Ticks came while a run went on, each counted as an overlap: this
		// one is measured from the slot after the last of them.
		expected = e.schedule.Next(time.Unix(0, s).UTC())
	}
	late, missed := lateness(e.schedule, expected, tick)
	if late > lateAfter {
		e.s.metrics.RunsSkipped.WithLabelValues(e.policy, "late").Inc()
		e.s.logger.Warn("Tick fired late", "policy", e.policy, "late", late.Round(time.Millisecond), "missed_slots", missed)
	}
	if missed > 0 {
		e.s.metrics.RunsSkipped.WithLabelValues(e.policy, "missed").Add(float64(missed))
	}
	e.expected = e.schedule.Next(tick)
	e.due.Store(e.expected.UnixNano())
}

// lateness says how long after the expected slot tick came, and how many
// slots of sched passed in between without a tick.
func lateness(sched cron.Schedule, expected, tick time.Time) (late time.Duration, missed int) {
	if expected.IsZero() || !tick.After(expected) {
		return 0, 0
	}
	for next := sched.Next(expected); !next.After(tick) && missed < 1_000_000; next = sched.Next(next) {
		missed++
	}
	return tick.Sub(expected), missed
}

// deadline bounds a run: until the next tick, but at least two minutes (a
// transaction may need ~90 s to land or expire) and at most fifteen.
func (e *entry) deadline(tick time.Time) time.Duration {
	d := e.schedule.Next(tick).Sub(tick)
	return min(max(d, 2*time.Minute), 15*time.Minute)
}

// runOnce runs fn as run (given its ID here) with a deadline and panic
// recovery, recording metrics. It returns fn's error (a panic becomes an
// error).
func (s *scheduler) runOnce(run runInfo, timeout time.Duration, fn runFunc) (err error) {
	policy := run.Policy
	run.ID = fmt.Sprintf("%s-%d", run.Tick.Format("20060102T150405Z"), s.seq.Add(1))
	if run.Triggered {
		run.ID += "-t"
	}
	ctx, cancel := context.WithTimeout(s.root, timeout)
	defer cancel()
	start := time.Now()
	outcome := "ok"
	defer func() {
		if r := recover(); r != nil {
			outcome = "panic"
			err = fmt.Errorf("policy %s run %s panicked: %v", policy, run.ID, r)
			s.logger.Error("Policy run panicked", "policy", policy, "run", run.ID, "err", err, "stack", string(debug.Stack()))
		}
		s.metrics.Runs.WithLabelValues(policy, outcome).Inc()
		s.metrics.RunDuration.WithLabelValues(policy).Observe(time.Since(start).Seconds())
		if outcome == "ok" {
			s.metrics.LastSuccess.WithLabelValues(policy).Set(float64(time.Now().Unix()))
		}
	}()
	if err = fn(ctx, run); err != nil {
		outcome = "error"
	}
	return err
}
