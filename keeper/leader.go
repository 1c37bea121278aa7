package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
)

// leaseJournal is a journal several keepers share, one of them leading
// (see journal.Journal.Campaign); *journal.Journal on PostgreSQL.
type leaseJournal interface {
	Shared() bool
	Campaign(ctx context.Context, holder string, ttl time.Duration) (journal.Lease, bool, error)
	Renew(ctx context.Context, token int64, ttl time.Duration) (bool, error)
	Resign(ctx context.Context, token int64) error
	Fence(token int64)
}

// leadership decides whether this keeper may act on a shared journal: it
// campaigns for the lease while it stands by, renews it every third of the
// lease while it leads, and settles the journal from the chain (recovery)
// before a new term acts. It leads only while the lease, as last renewed,
// has not run out by its own clock: a keeper that was paused or cut off
// stops acting before the database could give the lease to another, and
// the journal's fencing refuses whatever it still tries to write.
type leadership struct {
	j       leaseJournal
	ttl     time.Duration
	holder  string
	recover func(ctx context.Context) error
	metrics *Metrics
	logger  *slog.Logger
	clock   func() time.Time // monotonic: time.Now

	mu      sync.Mutex
	token   int64     // the term held, 0 while standing by
	ready   bool      // the term's recovery is done: it may act
	until   time.Time // when the lease runs out by this keeper's clock
	other   int64     // the other leader's term last reported, to log each once
	standby time.Time // since when this keeper has stood by
}

// newLeadership returns the leadership of j when it is shared, else nil:
// an SQLite journal has one owner, which always leads.
func newLeadership(e env, j Journal, recover func(context.Context) error) *leadership {
	if !j.Shared() {
		return nil
	}
	host, _ := os.Hostname()
	ttl := e.cfg.Journal.Lease
	if ttl <= 0 { // a Config built in code rather than loaded
		ttl = config.DefaultLease
	}
	return &leadership{j: j, ttl: ttl, recover: recover, metrics: e.metrics, logger: e.logger,
		holder: fmt.Sprintf("pid %d on %s since %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339)),
		clock:  time.Now, standby: time.Now()}
}

// leading reports whether this keeper may act now. Without a shared
// journal it always may.
func (l *leadership) leading() bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.token != 0 && l.ready && l.clock().Before(l.until)
}

// role says, for /status, whether this keeper leads ("leader"), has won
// a term and settles the journal ("settling"), or stands by ("standby"),
// and its term. Without a shared journal it always leads, with no term.
func (l *leadership) role() (string, int64) {
	if l == nil {
		return "leader", 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.token == 0 || !l.clock().Before(l.until):
		return "standby", 0
	case !l.ready:
		return "settling", l.token
	}
	return "leader", l.token
}

// start runs l in the background until ctx ends; the channel closes once
// it has resigned. Without a shared journal (nil) it closes at once.
func (l *leadership) start(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if l == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		l.run(ctx)
	}()
	return done
}

// run campaigns and renews until ctx ends, then resigns a term it holds so
// that a standby takes over at once.
func (l *leadership) run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			l.resign()
			return
		case <-t.C:
			// Renew the term held, or campaign for one.
			l.mu.Lock()
			token := l.token
			l.mu.Unlock()
			if token != 0 {
				l.renew(ctx, token)
			} else {
				l.campaign(ctx)
			}
			t.Reset(l.ttl / 3)
		}
	}
}

// once takes the lease for one pass (run --once): it campaigns once and,
// having won, fences the journal's writes and leads (the caller settles
// the journal before it acts), renewing the lease while the pass runs. The
// returned function stops renewing and resigns.
func (l *leadership) once(ctx context.Context) (func(), error) {
	lease, won, err := l.j.Campaign(ctx, l.holder, l.ttl)
	if err != nil {
		return nil, fmt.Errorf("keeper: %w", err)
	}
	if !won {
		return nil, fmt.Errorf("keeper: %w: another keeper leads the shared journal (term %d, %s; its lease runs %s more), "+
			"and run --once acts only as the leader", journal.ErrNotLeader, lease.Token, lease.Holder, lease.Remaining.Round(time.Millisecond))
	}
	l.j.Fence(lease.Token)
	l.mu.Lock()
	// The pass settles the journal before it runs a policy (RunOnce).
	l.token, l.ready, l.until = lease.Token, true, l.clock().Add(l.ttl)
	l.mu.Unlock()
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		l.keep(kctx, lease.Token)
	}()
	return func() {
		stop()
		<-kept
		l.resign()
	}, nil
}

// keep renews term token every third of the lease until ctx ends or the
// term is lost; a lost term is not campaigned for again.
func (l *leadership) keep(ctx context.Context, token int64) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.renew(ctx, token)
			if _, term := l.role(); term != token {
				return
			}
		}
	}
}

// campaign asks for the lease; a won term settles the journal before it
// acts, while run goes on renewing.
func (l *leadership) campaign(ctx context.Context) {
	start := l.clock()
	cctx, cancel := context.WithTimeout(ctx, l.ttl/3)
	defer cancel()
	lease, won, err := l.j.Campaign(cctx, l.holder, l.ttl)
	if err != nil {
		l.logger.Warn("Cannot campaign for the lease", "err", err)
		return
	}
	if !won {
		l.noteOther(lease)
		return
	}
	l.j.Fence(lease.Token)
	l.mu.Lock()
	l.token, l.ready, l.until = lease.Token, false, start.Add(l.ttl)
	standby := start.Sub(l.standby)
	l.mu.Unlock()
	l.metrics.LeaderTerms.Inc()
	l.logger.Info("Won the lease; settling the journal before acting", "term", lease.Token, "standby_for", standby.Round(time.Millisecond))
	go l.settle(ctx, lease.Token)
}

// noteOther logs, once per term, which keeper leads while this one stands by.
func (l *leadership) noteOther(lease journal.Lease) {
	l.mu.Lock()
	seen := l.other == lease.Token
	l.other = lease.Token
	l.mu.Unlock()
	if !seen {
		l.logger.Info("Standing by: another keeper leads", "term", lease.Token, "leader", lease.Holder,
			"lease_left", lease.Remaining.Round(time.Millisecond))
	}
}

// settle runs recovery for term token and, if the term still holds, lets
// it act.
func (l *leadership) settle(ctx context.Context, token int64) {
	err := l.recover(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.token != token {
		return
	}
	if err != nil {
		l.logger.Error("Cannot settle the journal; giving the lease up", "term", token, "err", err)
		l.dropLocked()
		return
	}
	l.ready = true
	l.metrics.Leader.Set(1)
	l.logger.Info("Leading: acting on the policies", "term", token)
}

// renew extends term token's lease; it steps down when another keeper took
// the lease, or when the lease ran out before a renewal could reach the
// database.
func (l *leadership) renew(ctx context.Context, token int64) {
	start := l.clock()
	cctx, cancel := context.WithTimeout(ctx, l.ttl/3)
	defer cancel()
	ok, err := l.j.Renew(cctx, token, l.ttl)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.token != token {
		return
	}
	switch {
	case err == nil && ok:
		l.until = start.Add(l.ttl)
	case err == nil:
		l.logger.Warn("Deposed: another keeper took the lease; standing by", "term", token)
		l.dropLocked()
	case !l.clock().Before(l.until):
		l.logger.Warn("Lease ran out before it could be renewed; standing by", "term", token, "err", err)
		l.dropLocked()
	default:
		l.logger.Warn("Cannot renew the lease; trying again", "term", token, "err", err)
	}
}

// dropLocked ends the term held: nothing more is written under it.
func (l *leadership) dropLocked() {
	l.j.Fence(0)
	l.token, l.ready, l.standby = 0, false, l.clock()
	l.metrics.Leader.Set(0)
}

// resign gives a held term up at once (on shutdown).
func (l *leadership) resign() {
	l.mu.Lock()
	token := l.token
	if token != 0 {
		l.dropLocked()
	}
	l.mu.Unlock()
	if token == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.j.Resign(ctx, token); err != nil && !errors.Is(err, context.Canceled) {
		l.logger.Warn("Cannot resign the lease; it lapses by itself", "term", token, "err", err)
		return
	}
	l.logger.Info("Resigned the lease", "term", token)
}
