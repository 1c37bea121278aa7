package keeper

import (
	"bytes"
	"context"
	"errors"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// unknownSend is a submission whose outcome the run did not see.
var unknownSend = sendReply{outcome: chain.OutcomeUnknown, err: context.DeadlineExceeded}

// pendingAction runs p with an unknown submission outcome and checks that
// it stays submitted.
func pendingAction(t *testing.T, w *world, k *testKeeper, p action.Plan) journal.Action {
	t.Helper()
	w.sub.scriptSends(unknownSend)
	if got := k.run(p); got != action.OutcomePending {
		t.Fatalf("run = %s, want pending", got)
	}
	act := k.action(t, p.ID)
	if act.State != journal.StateSubmitted {
		t.Fatalf("journal state %s, want submitted", act.State)
	}
	return act
}

func TestRecoverSettlesFromChain(t *testing.T) {
	cases := []struct {
		name   string
		settle settleReply
		state  journal.State
		rule   journal.Rule
		open   bool
	}{
		{"landed", settleReply{verdict: chain.VerdictLanded}, journal.StateLanded, "", false},
		{"dead", settleReply{verdict: chain.VerdictDead}, journal.StateExpired, "blockhash-expired", false},
		{"chain unreachable", settleReply{err: &chain.TransportError{Method: "getSignatureStatuses", Endpoint: "rpc", Err: errors.New("reset")}},
			journal.StateSubmitted, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			p := repayPlan("rec")
			pendingAction(t, w, k, p)
			w.sub.scriptSettles(tc.settle)
			if err := k.Recover(t.Context()); err != nil {
				t.Fatalf("Recover: %v", err)
			}
			act := k.action(t, p.ID)
			_, open := act.OpenAttempt()
			if act.State != tc.state || act.Rule != tc.rule || open != tc.open {
				t.Errorf("journal: state %s rule %q open %v; want %s %q %v", act.State, act.Rule, open, tc.state, tc.rule, tc.open)
			}
			_, sent, settled, _ := w.sub.snapshot()
			if len(sent) != 1 || len(w.market.keys()) != 1 {
				t.Errorf("Recover sent %d or built %d: it must not act anew", len(sent)-1, len(w.market.keys())-1)
			}
			wantRefs := [][]chain.TxRef{{sent[0].txs[0].Ref()}}
			if len(settled) != 1 || !slices.EqualFunc(settled[0], wantRefs, slices.Equal) {
				t.Errorf("Settle asked about %v, want the journaled attempt %v", settled, wantRefs)
			}
			if got := testutil.ToFloat64(k.metrics.JournalPending); got != 1 {
				t.Errorf("journal_pending_actions = %v, want 1", got)
			}
		})
	}
}

func TestPendingThenLandedIsSettledNotRetaken(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("late")
	pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictLanded})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := k.run(p); got != action.OutcomeSettled {
		t.Errorf("run after recovery = %s, want settled", got)
	}
	if got := w.market.keys(); len(got) != 1 {
		t.Errorf("builds = %v, want only the first", got)
	}
}

func TestPendingSettledByNextRun(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("next")
	pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictLanded})
	if got := k.run(p); got != action.OutcomeLanded {
		t.Errorf("next run = %s, want landed from the chain", got)
	}
	if act := k.action(t, p.ID); act.State != journal.StateLanded || act.AttemptCount != 1 {
		t.Errorf("journal: state %s attempts %d, want landed 1", act.State, act.AttemptCount)
	}
}

func TestDeadAttemptRebuiltOnlyAfterChainCheck(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("dead")
	first := pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictDead})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	mark := len(w.log.list())
	if got := k.run(p); got != action.OutcomeLanded {
		t.Fatalf("run after recovery = %s, want landed", got)
	}
	events := w.log.list()[mark:]
	build := slices.Index(events, "build dead-2")
	check := slices.Index(events, "settle 1")
	if check < 0 || build < 0 || check > build {
		t.Errorf("events after recovery = %v: want a chain check of attempt 1 before building attempt 2", events)
	}
	_, _, settled, _ := w.sub.snapshot()
	last := settled[len(settled)-1]
	if len(last) != 1 || last[0][0].Signature.String() != first.Attempts[0].Signatures[0].Signature {
		t.Errorf("chain check asked about %v, want attempt 1's signature", last)
	}
	act := k.action(t, p.ID)
	if act.State != journal.StateLanded || act.AttemptCount != 2 || act.Attempts[0].Outcome != journal.StateExpired {
		t.Errorf("journal: state %s, %d attempts, first %s; want landed, 2, expired", act.State, act.AttemptCount, act.Attempts[0].Outcome)
	}
}

func TestNoRebuildWhileChainUnsure(t *testing.T) {
	cases := []struct {
		name   string
		settle settleReply
	}{
		{"chain unreachable", settleReply{err: errors.New("rpc down")}},
		{"earlier attempt still pending", settleReply{verdict: chain.VerdictPending}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			p := repayPlan("unsure")
			pendingAction(t, w, k, p)
			w.sub.scriptSettles(settleReply{verdict: chain.VerdictDead}, tc.settle)
			if err := k.Recover(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := k.run(p); got != action.OutcomeRetry {
				t.Errorf("run = %s, want retry", got)
			}
			if got := w.market.keys(); len(got) != 1 {
				t.Errorf("builds = %v: a new attempt was built without proof the first is dead", got)
			}
		})
	}
}

func TestLateLandingFailsWithoutRebuild(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("ghost")
	pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictDead}, settleReply{verdict: chain.VerdictLanded, attempt: 0})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := k.run(p); got != action.OutcomeFailed {
		t.Fatalf("run = %s, want failed", got)
	}
	act := k.action(t, p.ID)
	if act.State != journal.StateFailed || act.Rule != "late-landing" || !strings.Contains(act.Detail, "attempt 1 ") {
		t.Errorf("journal: state %s rule %q detail %q; want failed late-landing naming attempt 1", act.State, act.Rule, act.Detail)
	}
	if got := w.market.keys(); len(got) != 1 {
		t.Errorf("builds = %v, want none after the late landing", got)
	}
	if got := k.actions(action.OutcomeFailed); got != 1 {
		t.Errorf("actions_total{outcome=failed} = %v, want 1", got)
	}
}

// Settlement.Attempt indexes the attempts passed to Settle, which skip the
// attempts that never signed; the late-landing detail must name the real
// attempt number.
func TestLateLandingNamesTheAttemptThatLanded(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("which")
	w.market.script(marketReply{err: apiError(http.StatusServiceUnavailable)})
	if got := k.run(p); got != action.OutcomeRetry {
		t.Fatalf("run 1 = %s, want retry", got)
	}
	pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictDead}, settleReply{verdict: chain.VerdictLanded, attempt: 0})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := k.run(p); got != action.OutcomeFailed {
		t.Fatalf("run 3 = %s, want failed", got)
	}
	if act := k.action(t, p.ID); !strings.Contains(act.Detail, "attempt 2 ") {
		t.Errorf("detail %q, want it to name attempt 2 (attempt 1 never signed anything)", act.Detail)
	}
}

// An attempt that reached the chain and failed there is a failure, whether
// the run saw it or recovery found it.
func TestRecoveredChainFailureIsFailed(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("broke")
	pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictLanded, txErr: map[string]any{"InstructionError": []any{0, "Custom"}}})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if act := k.action(t, p.ID); act.State != journal.StateFailed {
		t.Errorf("journal state %s rule %q, want failed: the transaction landed with an error", act.State, act.Rule)
	}
}

func TestRecoverRebroadcastsJournaledBytes(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("again")
	pendingAction(t, w, k, p)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictPending})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, sent, _, _ := w.sub.snapshot()
	if len(sent) != 2 || sent[1].route != chain.RouteRPC {
		t.Fatalf("submissions = %d, want the first and one rebroadcast by rpc", len(sent))
	}
	first, again := sent[0].txs, sent[1].txs
	if len(first) != len(again) {
		t.Fatalf("rebroadcast %d transactions, first sent %d", len(again), len(first))
	}
	for i := range first {
		if !bytes.Equal(first[i].Raw, again[i].Raw) || first[i].Signature != again[i].Signature || first[i].Blockhash != again[i].Blockhash {
			t.Errorf("transaction %d rebroadcast differs from what was first sent", i)
		}
	}
	if got := w.market.keys(); len(got) != 1 {
		t.Errorf("builds = %v, want none during recovery", got)
	}
	if act := k.action(t, p.ID); act.State != journal.StateLanded || act.AttemptCount != 1 {
		t.Errorf("journal: state %s attempts %d, want landed 1", act.State, act.AttemptCount)
	}
}

// TestRecoverCountsAnUnsettledRebroadcast: a rebroadcast whose send does
// not settle leaves the action for the next recovery and counts as pending,
// as a first send that does not settle does (before, recovery said and
// counted nothing).
func TestRecoverCountsAnUnsettledRebroadcast(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("unsettled")
	pendingAction(t, w, k, p)
	before := k.actions(action.OutcomePending)
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictPending})
	w.sub.scriptSends(unknownSend)
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := k.actions(action.OutcomePending) - before; got != 1 {
		t.Errorf("pending counted %v times by recovery, want 1", got)
	}
	if act := k.action(t, p.ID); act.State != journal.StateSubmitted {
		t.Errorf("journal state %s, want submitted (left for the next recovery)", act.State)
	}
}

func TestRecoverWaitsForPendingBundle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := newKeeper(t)
		p := bundlePlan("wait", 0)
		pendingAction(t, w, k, p)
		pending := settleReply{verdict: chain.VerdictPending}
		w.sub.scriptSettles(pending, pending, pending, settleReply{verdict: chain.VerdictLanded})
		start := time.Now()
		if err := k.Recover(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got, want := time.Since(start), 2*w.cfg.Chain.Poll; got != want {
			t.Errorf("recovery waited %v, want %v (two polls after the first two checks)", got, want)
		}
		_, sent, settled, _ := w.sub.snapshot()
		if len(sent) != 1 || len(settled) != 4 {
			t.Errorf("sent %d, settle calls %d; want 1 and 4: bundle transactions are never resent alone", len(sent), len(settled))
		}
		if act := k.action(t, p.ID); act.State != journal.StateLanded {
			t.Errorf("journal state %s, want landed", act.State)
		}
	})
}

func TestRecoverStopsWaitingWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, k := newKeeper(t)
		p := bundlePlan("stuck", 0)
		pendingAction(t, w, k, p)
		pending := settleReply{verdict: chain.VerdictPending}
		w.sub.scriptSettles(slices.Repeat([]settleReply{pending}, 20)...)
		ctx, cancel := context.WithTimeout(t.Context(), 4500*time.Millisecond)
		defer cancel()
		if err := k.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if act := k.action(t, p.ID); act.State != journal.StateSubmitted {
			t.Errorf("journal state %s, want submitted (still pending)", act.State)
		}
		_, sent, settled, _ := w.sub.snapshot()
		if len(sent) != 1 || len(settled) != 6 {
			t.Errorf("sent %d, settle calls %d; want 1 and 6 (the first check, then one a second until 4.5 s)", len(sent), len(settled))
		}
	})
}

// TestRecoveredBundleRecordsTheTipThatLanded: a bundle settled from the
// chain records the lamports of its journaled tip that landed.
func TestRecoveredBundleRecordsTheTipThatLanded(t *testing.T) {
	w, k := newKeeper(t)
	p := bundlePlan("tipped", 0)
	act := pendingAction(t, w, k, p)
	tips := act.Attempts[0].Tips
	if len(tips) != 1 {
		t.Fatalf("journaled tips = %d, want 1", len(tips))
	}
	w.sub.mu.Lock()
	w.sub.onChain[solana.MustSignatureFromBase58(tips[0].Signature)] = landing{}
	w.sub.mu.Unlock()
	w.sub.scriptSettles(settleReply{verdict: chain.VerdictLanded})
	if err := k.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := k.action(t, p.ID)
	if got.State != journal.StateLanded || got.Attempts[0].TipLamports != tips[0].Lamports {
		t.Errorf("state %s, tip %d; want landed with the tip's %d lamports", got.State, got.Attempts[0].TipLamports, tips[0].Lamports)
	}
}
