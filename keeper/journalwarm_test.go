package keeper

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
)

// gatedLog is a journal whose Warm waits for its gate and then returns err,
// counting its calls.
type gatedLog struct {
	Journal
	gate    chan struct{}
	err     error
	calls   int
	started bool
}

func (j *gatedLog) Warm(ctx context.Context) error {
	j.calls++
	j.started = true
	<-j.gate
	return j.err
}

func TestJournalWarmRunsOnceInTheBackground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s journalWarm
		j := &gatedLog{gate: make(chan struct{})}
		wait := s.begin(t.Context(), j, slog.New(slog.DiscardHandler))
		synctest.Wait()
		if !j.started {
			t.Fatal("begin did not start the warm-up")
		}
		done := false
		go func() {
			wait()
			done = true
		}()
		synctest.Wait()
		if done {
			t.Fatal("wait returned before the warm-up had ended")
		}
		close(j.gate)
		synctest.Wait()
		if !done {
			t.Fatal("wait did not return once the warm-up had ended")
		}
		s.begin(t.Context(), j, slog.New(slog.DiscardHandler))()
		if j.calls != 1 {
			t.Errorf("Warm called %d times by two begins, want once", j.calls)
		}
	})
}

func TestJournalWarmFailureIsLogged(t *testing.T) {
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	gate := make(chan struct{})
	close(gate)
	var s journalWarm
	s.begin(t.Context(), &gatedLog{gate: gate, err: errors.New("disk I/O error")}, log)()
	if got := buf.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "err=\"disk I/O error\"") {
		t.Errorf("log = %q, want a warning with the error", got)
	}
}

func TestJournalWarmOfAJournalWithoutOne(t *testing.T) {
	var s journalWarm
	s.begin(t.Context(), struct{ Journal }{}, slog.New(slog.DiscardHandler))() // must not block or panic
}

// logSteps is the real journal, logging when it warms up and when it
// journals an intent.
type logSteps struct {
	*journal.Journal
	log *eventLog
}

func (j logSteps) Warm(ctx context.Context) error {
	j.log.add("Warm")
	return j.Journal.Warm(ctx)
}

func (j logSteps) Start(ctx context.Context, in journal.Intent) (journal.Action, journal.Attempt, bool, error) {
	j.log.add("Start %s", in.Policy)
	return j.Journal.Start(ctx, in)
}

// TestTheFirstRunThatMayActWarmsTheJournal runs auto-repay on the file
// journal an earlier process left: the run warms the journal before it
// journals its repay's intent (and the rehearsal leaves no action behind),
// and the next run does not again. A run that may not act (every policy in
// dry run) does not warm it.
func TestTheFirstRunThatMayActWarmsTheJournal(t *testing.T) {
	for _, dry := range []bool{false, true} {
		t.Run("dry_run="+map[bool]string{false: "no", true: "yes"}[dry], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, "auto-repay.yaml")
				steps := &eventLog{}
				w.journalOf = func(j *journal.Journal) Journal { return logSteps{Journal: j, log: steps} }
				dsn := "sqlite:" + filepath.Join(t.TempDir(), "keeper.db")
				earlier, err := journal.Open(t.Context(), dsn, journal.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := earlier.Close(); err != nil {
					t.Fatal(err)
				}
				k := w.open(t, dsn)
				k.dryRunAll = dry
				w.advance(t, 15*time.Second)
				r, _, _ := k.runners.use(k.Keeper, k.policyNamed(t, "auto-repay"))
				for i, id := range []string{"first", "second"} {
					if err := r.tick(t.Context(), runInfo{Policy: "auto-repay", ID: id, Tick: time.Now()}); err != nil {
						t.Fatalf("run %d: %v", i+1, err)
					}
					w.advance(t, time.Minute)
				}
				got := steps.list()
				want := []string{"Warm", "Start auto-repay"}
				if dry {
					want = nil
				}
				if !slices.Equal(got[:min(len(got), 2)], want) || slices.Contains(got[min(len(got), 1):], "Warm") {
					t.Errorf("journal steps of two runs = %q, want them to begin %q and the journal warmed once", got, want)
				}
				for _, a := range k.actionsOf(t, "rehearsal") {
					t.Errorf("the rehearsal left an action: %+v", a)
				}
			})
		})
	}
}
