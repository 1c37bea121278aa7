package journal

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"sync"
	"testing"
)

// groupProbe holds the first write of a file journal inside its
// transaction until `behind` more writes wait for it, and records each
// write's transaction and synchronous level.
type groupProbe struct {
	j      *Journal
	behind int
	// held closes once the first write is inside its transaction,
	// waiting closes once `behind` writes wait, and release lets the
	// first write commit.
	held, waiting, release chan struct{}
	// fail, when set and true for a write's transaction, makes that write
	// fail after its statements ran.
	fail func(ctx context.Context, tx dbtx) bool

	mu      sync.Mutex
	txs     []*sql.Tx
	levels  []int
	commits []Commit // durations zeroed
}

// newGroupProbe opens a file journal for a probe (see groupProbe); arm
// installs its hooks.
func newGroupProbe(t *testing.T, behind int) *groupProbe {
	return &groupProbe{j: openDSN(t, tempDSN(t), newClock()), behind: behind,
		held: make(chan struct{}), waiting: make(chan struct{}), release: make(chan struct{})}
}

// arm installs the probe's hooks; writes before it commit as usual.
func (p *groupProbe) arm() {
	p.j.committed = func(c Commit) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if c.Duration <= 0 {
			c.Writes = -1 // reported without its time
		}
		c.Duration = 0
		p.commits = append(p.commits, c)
	}
	p.j.group.Waiting = func(n int) {
		if n == p.behind {
			close(p.waiting)
		}
	}
	p.j.beforeCommit = func(ctx context.Context, tx dbtx) error {
		level, err := commitLevel(ctx, tx)
		if err != nil {
			return err
		}
		p.mu.Lock()
		first := len(p.txs) == 0
		p.txs, p.levels = append(p.txs, tx.tx), append(p.levels, level)
		p.mu.Unlock()
		if first {
			close(p.held)
			<-p.release
		}
		if p.fail != nil && p.fail(ctx, tx) {
			return errors.New("refused by the test")
		}
		return nil
	}
}

// run starts first, then, once it is inside its transaction, the others;
// once they all wait it lets first commit, and returns every write's
// error, first's first.
func (p *groupProbe) run(first func() error, others ...func() error) []error {
	errs := make([]error, 1+len(others))
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = first() })
	<-p.held
	for i, w := range others {
		wg.Go(func() { errs[i+1] = w() })
	}
	<-p.waiting
	close(p.release)
	wg.Wait()
	return errs
}

// grouped returns the synchronous level of each write after the first,
// failing the test unless they all committed in one transaction other
// than the first's.
func (p *groupProbe) grouped(t *testing.T) []int {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.txs) != p.behind+1 {
		t.Fatalf("%d writes reached their commit, want %d", len(p.txs), p.behind+1)
	}
	for i, tx := range p.txs[1:] {
		if tx == p.txs[0] || tx != p.txs[1] {
			t.Fatalf("write %d ran in its own transaction; the writes that waited together must share one", i+2)
		}
	}
	return p.levels[1:]
}

// reported checks the commits Options.Committed was told of since arm.
func (p *groupProbe) reported(t *testing.T, want ...Commit) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !reflect.DeepEqual(p.commits, want) {
		t.Errorf("commits reported %+v, want %+v", p.commits, want)
	}
}

// begin returns a write that journals intent id.
func (p *groupProbe) begin(ctx context.Context, id string) func() error {
	return func() error {
		_, _, err := p.j.Begin(ctx, testIntent(id))
		return err
	}
}

// newAttempt returns a lazy write: action id's next attempt.
func (p *groupProbe) newAttempt(ctx context.Context, id string) func() error {
	return func() error {
		_, err := p.j.NewAttempt(ctx, id)
		return err
	}
}

// TestWritesThatWaitTogetherShareACommit checks that writes arriving while
// another commits are committed together, in one transaction, durably when
// any of them must be, and each is journaled.
func TestWritesThatWaitTogetherShareACommit(t *testing.T) {
	ctx := t.Context()
	p := newGroupProbe(t, 4)
	for _, id := range []string{"lazy-1", "lazy-2"} {
		mustBegin(t, p.j, testIntent(id))
	}
	p.arm()
	errs := p.run(p.begin(ctx, "first"), p.begin(ctx, "b1"), p.newAttempt(ctx, "lazy-1"), p.begin(ctx, "b2"), p.newAttempt(ctx, "lazy-2"))
	for i, err := range errs {
		if err != nil {
			t.Errorf("write %d: %v", i+1, err)
		}
	}
	if got, want := p.grouped(t), []int{syncFull, syncFull, syncFull, syncFull}; !reflect.DeepEqual(got, want) {
		t.Errorf("the group's writes committed at synchronous levels %v, want %v (one of them is durable)", got, want)
	}
	p.reported(t, Commit{Writes: 1, Durable: true}, Commit{Writes: 4, Durable: true})
	for _, id := range []string{"first", "b1", "b2"} {
		if _, err := p.j.Get(ctx, id); err != nil {
			t.Errorf("intent %s: %v", id, err)
		}
	}
	for _, id := range []string{"lazy-1", "lazy-2"} {
		if act, err := p.j.Get(ctx, id); err != nil || act.AttemptCount != 1 {
			t.Errorf("%s: %d attempts, %v; want its attempt journaled", id, act.AttemptCount, err)
		}
	}
}

// TestLazyWritesGroupedStayLazy checks that a group of lazy writes alone
// commits without an fsync.
func TestLazyWritesGroupedStayLazy(t *testing.T) {
	ctx := t.Context()
	p := newGroupProbe(t, 3)
	ids := []string{"a", "b", "c", "d"}
	for _, id := range ids {
		mustBegin(t, p.j, testIntent(id))
	}
	p.arm()
	errs := p.run(p.newAttempt(ctx, "a"), p.newAttempt(ctx, "b"), p.newAttempt(ctx, "c"), p.newAttempt(ctx, "d"))
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got, want := p.grouped(t), []int{syncNormal, syncNormal, syncNormal}; !reflect.DeepEqual(got, want) {
		t.Errorf("a group of lazy writes committed at synchronous levels %v, want %v", got, want)
	}
	p.reported(t, Commit{Writes: 1}, Commit{Writes: 3})
	var level int
	if err := p.j.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil || level != syncFull {
		t.Errorf("after the group the connection is at synchronous=%d, %v; want %d", level, err, syncFull)
	}
}

// TestAFailedWriteOfAGroupRollsBackAlone checks that a write that fails
// after its statements ran leaves nothing, and the others of its group are
// journaled.
func TestAFailedWriteOfAGroupRollsBackAlone(t *testing.T) {
	ctx := t.Context()
	p := newGroupProbe(t, 3)
	p.arm()
	p.fail = func(ctx context.Context, tx dbtx) bool {
		var n int
		err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM actions WHERE id = 'bad'`).Scan(&n)
		return err != nil || n > 0
	}
	errs := p.run(p.begin(ctx, "first"), p.begin(ctx, "g1"), p.begin(ctx, "bad"), p.begin(ctx, "g2"))
	for i, id := range []string{"first", "g1", "bad", "g2"} {
		_, getErr := p.j.Get(ctx, id)
		switch {
		case id == "bad" && (errs[i] == nil || !errors.Is(getErr, ErrNotFound)):
			t.Errorf("the failing write returned %v and left %v, want an error and nothing journaled", errs[i], getErr)
		case id != "bad" && (errs[i] != nil || getErr != nil):
			t.Errorf("write %s returned %v, reads back %v; want it journaled", id, errs[i], getErr)
		}
	}
	p.grouped(t)
	p.reported(t, Commit{Writes: 1, Durable: true}, Commit{Writes: 2, Durable: true})
}

// TestAWriteWhoseContextEndedWhileQueuedIsNotRun checks that a write
// queued behind a commit is not started once its context has ended.
func TestAWriteWhoseContextEndedWhileQueuedIsNotRun(t *testing.T) {
	ctx := t.Context()
	p := newGroupProbe(t, 2)
	p.arm()
	gone, cancel := context.WithCancel(ctx)
	wait := make(chan struct{})
	queued := p.j.group.Waiting
	p.j.group.Waiting = func(n int) {
		if n == 1 {
			close(wait)
		}
		queued(n)
	}
	late := func() error {
		<-wait
		cancel()
		return p.begin(ctx, "kept")()
	}
	errs := p.run(p.begin(ctx, "first"), p.begin(gone, "cancelled"), late)
	if !errors.Is(errs[1], context.Canceled) {
		t.Errorf("the cancelled write returned %v, want context.Canceled", errs[1])
	}
	if _, err := p.j.Get(ctx, "cancelled"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the cancelled write was journaled: %v", err)
	}
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the other writes returned %v and %v", errs[0], errs[2])
	}
}

// TestCommittedReportsEachCommit checks that Options.Committed hears of
// every commit of an action's path with its durability and time, and of
// no write that failed.
func TestCommittedReportsEachCommit(t *testing.T) {
	ctx := t.Context()
	var got []Commit
	j, err := Open(ctx, tempDSN(t), Options{Now: newClock().Now, Committed: func(c Commit) { got = append(got, c) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	got = nil // the migrations' commits
	if err := runSteps(ctx, j, "a", landedPath); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordSubmitted(ctx, "a", 1); err == nil {
		t.Fatal("a landed action took a submission")
	}
	want := []bool{true, false, true, false, false} // Start, built, signed, submitted, settled (landed, lazy)
	if len(got) != len(want) {
		t.Fatalf("%d commits reported, want %d: %+v", len(got), len(want), got)
	}
	for i, c := range got {
		if c.Writes != 1 || c.Durable != want[i] || c.Duration <= 0 {
			t.Errorf("commit %d (%s) reported %+v, want one write, durable %v, a duration", i+1, landedPath[i].name, c, want[i])
		}
	}
}
