package keeper

import (
	"context"
	"log/slog"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
)

// How often the daemon sweeps the actions it left unsettled (see sweeper):
// every sweepInterval, and sweepSoon after an outcome could not be
// journaled, backing off to sweepInterval while the journal cannot be read.
const (
	sweepInterval = 30 * time.Second
	sweepSoon     = 2 * time.Second
)

// sweeper settles from the chain, while the daemon runs, the actions this
// keeper left unsettled: an outcome the journal refused (its server
// restarted, its disk is full) or lost (a lazy commit dropped by a database
// crash) leaves its attempt open, and without a sweep the target would stay
// held, and its loan unprotected, until the next start.
type sweeper struct {
	journal Journal
	sweep   func(ctx context.Context, pending []journal.Action) int // the executor's Sweep
	leading func() bool
	logger  *slog.Logger
	wake    chan struct{}
}

// newSweeper returns a sweeper that is woken by poke.
func newSweeper(j Journal, logger *slog.Logger) *sweeper {
	return &sweeper{journal: j, logger: logger, wake: make(chan struct{}, 1), leading: func() bool { return true }}
}

// poke asks for a sweep soon: an outcome could not be journaled.
func (s *sweeper) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run sweeps until ctx ends: every sweepInterval, sweepSoon after a poke,
// and, while the journal cannot be read, again after a wait that doubles
// from sweepSoon up to sweepInterval.
func (s *sweeper) run(ctx context.Context) {
	t := time.NewTimer(sweepInterval)
	defer t.Stop()
	retry := sweepSoon
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
			t.Reset(sweepSoon)
			continue
		case <-t.C:
		}
		next := sweepInterval
		if !s.once(ctx) {
			next, retry = retry, min(2*retry, sweepInterval)
		} else {
			retry = sweepSoon
		}
		t.Reset(next)
	}
}

// once sweeps now when this keeper leads, and reports whether it could
// read the journal.
func (s *sweeper) once(ctx context.Context) bool {
	if !s.leading() {
		return true
	}
	pending, err := s.journal.Pending(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.logger.Error("Cannot read the journal's unsettled actions; trying again", "err", err)
		}
		return false
	}
	if n := s.sweep(ctx, pending); n > 0 {
		s.logger.Info("Swept the journal", "settled", n)
	}
	return true
}
