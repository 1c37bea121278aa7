package keeper

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
)

// withoutTimes returns tips with their journaling times cleared, for
// comparison, after checking that each has one.
func withoutTimes(tips []journal.Tip) []journal.Tip {
	out := slices.Clone(tips)
	for i := range out {
		if out[i].RecordedAt.IsZero() {
			out[i].Signature += " (no journaling time)"
		}
		out[i].RecordedAt = time.Time{}
	}
	return out
}

// TestEveryTipIsJournaledBeforeSending runs bundles whose tip is raised on
// resubmission: every tip transaction handed to the chain is journaled
// first (the fake submitter checks the journal as it is handed each one),
// in order, with the lamports and bytes sent.
func TestEveryTipIsJournaledBeforeSending(t *testing.T) {
	cases := []struct {
		name  string
		reply sendReply
		want  []uint64
		// paid is the tip the attempt settles with.
		paid uint64
	}{
		{"one tip", sendReply{outcome: chain.OutcomeLanded}, []uint64{10_000}, 10_000},
		{"raised twice", sendReply{outcome: chain.OutcomeLanded, raises: []uint64{20_000, 40_000}}, []uint64{10_000, 20_000, 40_000}, 40_000},
		{"raised, then expired", sendReply{outcome: chain.OutcomeExpired, raises: []uint64{20_000}}, []uint64{10_000, 20_000}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			w.sub.scriptSends(tc.reply)
			p := bundlePlan("tips", 50_000)
			k.run(p)
			_, sent, _, _ := w.sub.snapshot()
			if len(sent) == 0 || len(sent[0].tips) != len(tc.want) {
				t.Fatalf("first submission = %+v, want a bundle with %d tips", sent, len(tc.want))
			}
			act := k.action(t, p.ID)
			att := act.Attempts[0]
			var want []journal.Tip
			for i, l := range tc.want {
				sig := sent[0].tips[i].Signature
				want = append(want, journal.Tip{Signature: sig.String(), Blockhash: sent[0].txs[0].Blockhash.String(),
					Account: w.sub.tipAccount.String(), Lamports: l})
			}
			got := withoutTimes(att.Tips)
			for i := range got {
				got[i].Transaction = ""
			}
			if !slices.Equal(got, want) {
				t.Errorf("journaled tips = %+v\nwant %+v", got, want)
			}
			if last := att.Tips[len(att.Tips)-1]; last.Transaction != base64.StdEncoding.EncodeToString(sent[0].tip.Raw) {
				t.Errorf("last tip journaled with other bytes than were sent")
			}
			if att.Outcome == "" || att.TipLamports != tc.paid {
				t.Errorf("attempt 1 settled %q with tip %d, want settled with %d", att.Outcome, att.TipLamports, tc.paid)
			}
			steps := w.log.list()
			for _, l := range tc.want {
				journaled, handed := slices.Index(steps, "journal.RecordTip"), slices.Index(steps, fmt.Sprintf("tip %d", l))
				if journaled < 0 || handed < journaled {
					t.Errorf("steps %v: tip %d handed over before it was journaled", steps, l)
				}
				steps = slices.Delete(steps, journaled, journaled+1)
			}
		})
	}
}

// TestTipNotJournaledIsNotSent: when the journal cannot record the first
// tip, the chain gets no tip and sends nothing; the attempt expires so a
// later run tries again, and that one lands with its tip journaled.
func TestTipNotJournaledIsNotSent(t *testing.T) {
	w, k := newKeeper(t)
	k.Keeper.journal.(*crashJournal).failTips = 1
	p := bundlePlan("nojournal", 50_000)
	if got := k.run(p); got != action.OutcomeRetry {
		t.Fatalf("run with the journal failing = %s, want retry", got)
	}
	_, sent, _, _ := w.sub.snapshot()
	if len(sent) != 1 || sent[0].tip != nil || w.sub.landedCount(sigsOf(sent)) != 0 {
		t.Fatalf("submissions %+v: want one bundle refused without a tip, nothing on chain", sent)
	}
	if steps := w.log.list(); slices.Contains(steps, "send bundle 1") {
		t.Errorf("steps %v: the bundle was sent", steps)
	}
	act := k.action(t, p.ID)
	att := act.Attempts[0]
	if act.State != journal.StateExpired || att.Rule != "journal" || len(att.Tips) != 0 {
		t.Fatalf("after the failed tip: state %s, attempt 1 rule %q with %d tips; want expired by rule journal, no tips",
			act.State, att.Rule, len(att.Tips))
	}
	if !strings.Contains(att.Detail, "tip transaction not journaled") || !strings.Contains(att.Detail, errJournalDown.Error()) {
		t.Errorf("detail %q does not say the tip was not journaled and why", att.Detail)
	}
	if got := k.run(p); got != action.OutcomeLanded {
		t.Fatalf("next run = %s, want landed", got)
	}
	act = k.action(t, p.ID)
	if att := act.Attempts[1]; att.Outcome != journal.StateLanded || len(att.Tips) != 1 {
		t.Errorf("attempt 2: outcome %s with %d tips, want landed with its tip journaled", att.Outcome, len(att.Tips))
	}
}

// TestDailyFeesCountInFlightTips: the fees a policy spent today count, for
// an attempt still in flight, the largest tip journaled for it (only one can
// land), and for a settled attempt the fee and tip it paid.
func TestDailyFeesCountInFlightTips(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	w := newWorld(t)
	w.now = func() time.Time { return now }
	k := w.open(t, "sqlite::memory:")
	w.sub.scriptSends(
		sendReply{outcome: chain.OutcomeUnknown, err: context.DeadlineExceeded, raises: []uint64{30_000, 20_000}},
		sendReply{outcome: chain.OutcomeLanded, raises: []uint64{25_000}},
	)
	if got := k.run(bundlePlan("inflight", 50_000)); got != action.OutcomePending {
		t.Fatalf("first plan = %s, want pending", got)
	}
	if got := k.run(bundlePlan("landed", 50_000)); got != action.OutcomeLanded {
		t.Fatalf("second plan = %s, want landed", got)
	}
	h, _, err := historyAndResumable(t.Context(), k.journal, &policies.Policy{Name: "repay-loans"}, now)
	if err != nil {
		t.Fatal(err)
	}
	// In flight: tips 10000, 30000, 20000 and no fee yet; landed: fee
	// simFee and the 25000 tip that landed.
	if want := uint64(30_000 + simFee + 25_000); h.FeesToday != want {
		t.Errorf("fees today = %d, want %d", h.FeesToday, want)
	}
}
