package keeper

import (
	"fmt"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
)

// perTransaction are the crash steps an RPC sequence passes once per
// transaction.
var perTransaction = map[string]bool{"submitter.Simulate": true, "submitter.send": true, "submitter.sent": true}

// TestKillMidSequence kills keeper at every step of an RPC sequence of two
// transactions, at the step's first and second passage (the second is the
// second transaction's, where there is one), starts a new keeper on the same
// journal, recovers and runs the plan until it settles: each transaction of
// the answer lands exactly once, and nothing that landed is sent again.
func TestKillMidSequence(t *testing.T) {
	for _, step := range crashSteps {
		if bundleSteps[step] {
			continue
		}
		passes := 1
		if perTransaction[step] {
			passes = 2
		}
		for skip := range passes {
			t.Run(fmt.Sprintf("%s/%d", step, skip+1), func(t *testing.T) {
				w := newWorld(t)
				w.market.script(marketReply{txs: 2}, marketReply{txs: 2}, marketReply{txs: 2})
				dsn := dsnIn(t.TempDir())
				p := repayPlan("seq-kill")
				w.crash.setAfter(step, skip)
				first := w.open(t, dsn)
				got, _ := first.executeUntilCrash(p)
				if got != step {
					t.Fatalf("crashed at %q, want %q", got, step)
				}
				if err := first.Close(); err != nil {
					t.Fatalf("close after crash: %v", err)
				}
				second := w.open(t, dsn)
				if err := second.Recover(t.Context()); err != nil {
					t.Fatalf("Recover: %v", err)
				}
				for range 3 {
					if out := second.run(p); out == action.OutcomeSettled {
						break
					}
				}
				act := second.action(t, p.ID)
				if !act.State.Final() || act.State != journal.StateLanded && act.Rule != journal.RuleSequenceLanded {
					t.Fatalf("journal: %s %s (%s), want landed", act.State, act.Rule, act.Detail)
				}
				checkEachIndexOnce(t, w)
			})
		}
	}
}

// checkEachIndexOnce asserts that, over every submission, the transactions
// that reached the fake chain hold each index of the answer (the fake
// market's instruction data byte 1) exactly once, and no signature was
// sent with different bytes (the fake submitter checks that).
func checkEachIndexOnce(t *testing.T, w *world) {
	t.Helper()
	_, sent, _, problems := w.sub.snapshot()
	for _, p := range problems {
		t.Error(p)
	}
	landed := map[solana.Signature]int{}
	for _, rec := range sent {
		for _, tx := range rec.txs {
			if w.sub.landedCount([]solana.Signature{tx.Signature}) == 1 {
				decoded, err := solana.TransactionFromBytes(tx.Raw)
				if err != nil {
					t.Fatal(err)
				}
				landed[tx.Signature] = int(decoded.Message.Instructions[0].Data[1])
			}
		}
	}
	count := map[int]int{}
	for _, idx := range landed {
		count[idx]++
	}
	if count[0] != 1 || count[1] != 1 || len(count) != 2 {
		t.Errorf("answer indexes on chain %v, want 0 and 1 once each", count)
	}
}
