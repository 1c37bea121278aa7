package keeper

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
)

// crashingJournal is the journal of a keeper process that dies at one
// point of the proposal path: the panic ends the run there (the scheduler
// recovers it, as the process would die), the process is closed, and a
// new one opens the same journal file.
type crashingJournal struct {
	*journal.Journal
	at      string
	crashed *bool
}

func (c *crashingJournal) die(point string) {
	if point == c.at && !*c.crashed {
		*c.crashed = true
		panic("killed at " + point)
	}
}

// RecordSubmitted dies before the proposal is sent (its signature and
// index are journaled).
func (c *crashingJournal) RecordSubmitted(ctx context.Context, id string, attempt int) error {
	c.die("before-create-sent")
	return c.Journal.RecordSubmitted(ctx, id, attempt)
}

// Settle dies after the proposal landed, before the journal hears of it.
func (c *crashingJournal) Settle(ctx context.Context, id string, attempt int, out journal.Outcome) error {
	if out.State == journal.StateLanded {
		c.die("create-landed")
	}
	return c.Journal.Settle(ctx, id, attempt, out)
}

// UpdateProposal dies after the execution is journaled, before it is sent,
// and after it landed, before the journal hears of it.
func (c *crashingJournal) UpdateProposal(ctx context.Context, ms string, index uint64, u journal.ProposalUpdate) error {
	if u.State == journal.ProposalExecuted {
		c.die("execute-landed")
	}
	err := c.Journal.UpdateProposal(ctx, ms, index, u)
	if u.State == journal.ProposalExecuting {
		c.die("before-execute-sent")
	}
	return err
}

// TestSquadsKillAroundCreateAndExecute kills keeper before and after its
// proposal is sent and before and after its execution is sent, restarts it
// on the same journal, and checks that the multisig holds one proposal,
// executed once: two transactions paid by keeper landed, both succeeding.
func TestSquadsKillAroundCreateAndExecute(t *testing.T) {
	for _, point := range []string{"before-create-sent", "create-landed", "before-execute-sent", "execute-landed"} {
		t.Run(point, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { killAround(t, point) })
		})
	}
}

func killAround(t *testing.T, point string) {
	w := newSquadsWorld(t, faults.Faults{})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
	crashed := false
	w.journalOf = func(j *journal.Journal) Journal { return &crashingJournal{Journal: j, at: point, crashed: &crashed} }
	approved := false
	approve := func() {
		if approved || w.transactionIndex(t) == 0 {
			return
		}
		for _, v := range w.voters[:2] {
			if err := squadsim.Approve(w.sim.Chain(), w.multisig, 1, v); err != nil {
				t.Fatal(err)
			}
		}
		approved = true
	}
	first := w.open(t, dsn)
	w.advance(t, 10*time.Second)
	for i := 0; i < 3 && !crashed; i++ {
		dieOnce(t, first)
		approve()
		w.advance(t, 5*time.Second)
	}
	if !crashed {
		t.Fatalf("keeper never reached %s", point)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("close after the kill: %v", err)
	}
	w.journalOf = nil
	second := w.open(t, dsn)
	if err := second.Recover(t.Context()); err != nil {
		t.Fatalf("Recover: %v", err)
	}
	for range 3 {
		if err := second.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce after restart: %v", err)
		}
		approve()
		w.advance(t, 5*time.Second)
	}
	if n := w.transactionIndex(t); n != 1 {
		t.Fatalf("the multisig holds %d vault transactions, want 1", n)
	}
	if p := w.proposal(t, 1); p.Status != squads.StatusExecuted {
		t.Fatalf("proposal is %s, want executed", p.Status)
	}
	if got := solAPY(t, w.simWorld, w.address(t, ids.KindStrategy, "alpha"), 7); got != 92_500 {
		t.Errorf("alpha SOL 7d APY %d, want 92500", got)
	}
	paid := w.landed.paidBy(w.wallet())
	for _, x := range paid {
		if x.Err != nil {
			t.Errorf("a transaction of keeper's failed: %v", x.Err)
		}
	}
	if len(paid) != 2 {
		t.Errorf("%d transactions paid by keeper landed, want 2 (one proposal, one execution)", len(paid))
	}
	ps := proposalsOf(t, second)
	if len(ps) != 1 || ps[0].State != journal.ProposalExecuted {
		t.Errorf("journaled proposals %s, want one executed", fmt.Sprint(ps))
	}
	// The restarted process counts the execution landed, and, when the
	// first died before it journaled the proposal's landing, the landing
	// it recovered as proposed: never a proposal as a landed action.
	proposed := 0.0
	if point == "before-create-sent" || point == "create-landed" {
		proposed = 1
	}
	wantActionCounts(t, second, map[action.Outcome]float64{action.OutcomeProposed: proposed, action.OutcomeLanded: 1})
}

// dieOnce runs k once; the kill (a panic, wherever it is raised) ends it.
func dieOnce(t *testing.T, k *simKeeper) {
	defer func() { _ = recover() }()
	_ = k.RunOnce(t.Context()) // a run whose policy died reports it
}
