package keeper

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
)

// TestAnOutcomeTheJournalRefusedIsSweptFromTheChain: a repay lands while the
// journal refuses its outcome (a database restart), so the journal keeps the
// attempt submitted. The running daemon must not report the landing it could
// not journal, and must settle the action from the chain soon after, without
// a restart: otherwise the target stays held and its policy never acts on the
// loan again.
func TestAnOutcomeTheJournalRefusedIsSweptFromTheChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := newKeeper(t)
		refused := 0
		w.holdWrite = func(step string) error {
			if step == "journal.Settle" && refused == 0 {
				refused++
				return errJournalDown
			}
			return nil
		}
		p := repayPlan("blip")
		if got := k.run(p); got != action.OutcomePending {
			t.Fatalf("outcome = %s, want pending (the journal refused the landing)", got)
		}
		if st := k.action(t, p.ID).State; st != journal.StateSubmitted {
			t.Fatalf("journaled state %s, want submitted", st)
		}
		if n := k.actions(action.OutcomeLanded); n != 0 {
			t.Fatalf("a landing the journal did not take was counted %v times", n)
		}

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			k.sweeper.run(ctx)
		}()
		time.Sleep(sweepSoon + time.Second)
		synctest.Wait()
		act := k.action(t, p.ID)
		if act.State != journal.StateLanded {
			t.Errorf("journaled state %s %s after the sweep, want landed", act.State, act.Detail)
		}
		if n := k.actions(action.OutcomeLanded); n != 1 {
			t.Errorf("landed counted %v times, want once", n)
		}
		cancel()
		<-done
	})
}

// TestTheSweepLeavesActionsInFlightAlone: an action whose path this process
// is running is not settled by a sweep; a run planning an action a sweep is
// settling finds its target busy.
func TestTheSweepLeavesActionsInFlightAlone(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("inflight")
	swept := -1
	w.holdWrite = func(step string) error {
		if step == "journal.RecordSubmitted" {
			pending, err := k.journal.Pending(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			swept = k.exec.Sweep(context.Background(), pending)
		}
		return nil
	}
	if got := k.run(p); got != action.OutcomeLanded {
		t.Fatalf("outcome = %s, want landed", got)
	}
	if swept != 0 {
		t.Errorf("a sweep during the action's own path settled %d actions, want none", swept)
	}
	if n := k.actions(action.OutcomeLanded); n != 1 {
		t.Errorf("landed counted %v times, want once", n)
	}
}

// TestTheSweepBacksOffWhileTheJournalIsDown: while the journal cannot be
// read, the sweep tries again after waits that double up to sweepInterval,
// and settles once it answers.
func TestTheSweepBacksOffWhileTheJournalIsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, k := newKeeper(t)
		var (
			mu    sync.Mutex
			reads []time.Duration
			down  = true
		)
		start := time.Now()
		k.sweeper.journal = &pendingProbe{Journal: k.sweeper.journal, read: func() error {
			mu.Lock()
			defer mu.Unlock()
			reads = append(reads, time.Since(start))
			if down {
				return errJournalDown
			}
			return nil
		}}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			k.sweeper.run(ctx)
		}()
		k.sweeper.poke()
		time.Sleep(16*sweepSoon + time.Second)
		mu.Lock()
		down = false
		mu.Unlock()
		time.Sleep(sweepInterval)
		cancel()
		<-done
		// The poke's sweep at 2 s fails; the next ones wait 2, 4, 8 and 16 s
		// (the last capped by sweepInterval, 30 s), then the journal answers,
		// and the next sweep is a full interval later.
		want := []time.Duration{sweepSoon, 2 * sweepSoon, 4 * sweepSoon, 8 * sweepSoon, 16 * sweepSoon, 16*sweepSoon + sweepInterval}
		if len(reads) < len(want) {
			t.Fatalf("reads at %v, want at least %v", reads, want)
		}
		for i, at := range want {
			if reads[i] != at {
				t.Errorf("read %d at %v, want %v (all: %v)", i+1, reads[i], at, reads)
			}
		}
	})
}

// pendingProbe is a journal whose Pending first calls read, which may fail
// it.
type pendingProbe struct {
	Journal
	read func() error
}

func (p *pendingProbe) Pending(ctx context.Context) ([]journal.Action, error) {
	if err := p.read(); err != nil {
		return nil, err
	}
	return p.Journal.Pending(ctx)
}

// TestADeposedLeaderAnnouncesNothing: a keeper whose lease was taken while
// its repay was in flight lands the repay, but the journal refuses its
// outcome (it no longer leads). It must neither count nor notify the landing
// (the new leader's recovery settles and reports it, once), nor wake its own
// sweep into acting for the new leader.
func TestADeposedLeaderAnnouncesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := newKeeper(t)
		got := k.recordNotes(t)
		w.holdWrite = func(step string) error {
			if step == "journal.Settle" {
				return &journal.DeposedError{Token: 1, Current: 2}
			}
			return nil
		}
		p := repayPlan("deposed")
		p.NotifyOn = []notify.Event{notify.Landed, notify.Failed}
		if out := k.run(p); out != action.OutcomePending {
			t.Fatalf("outcome = %s, want pending", out)
		}
		synctest.Wait()
		if n := k.actions(action.OutcomeLanded); n != 0 {
			t.Errorf("landed counted %v times by a deposed leader", n)
		}
		if msgs := got.list(); len(msgs) != 0 {
			t.Errorf("a deposed leader sent %d notifications: %+v", len(msgs), msgs)
		}
	})
}
