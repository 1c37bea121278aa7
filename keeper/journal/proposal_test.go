package journal

import (
	"testing"
)

// TestProposalLifecycle: a proposal is journaled before its creation is
// sent, replaced only while it was never seen on chain, and settled once.
func TestProposalLifecycle(t *testing.T) {
	ctx := t.Context()
	j := openDSN(t, tempDSN(t), newClock())
	if _, _, err := j.Begin(ctx, testIntent("a2")); err != nil {
		t.Fatal(err)
	}
	p := Proposal{Multisig: "MS", Index: 3, ActionID: "a1", Policy: "pol", Target: "V", Message: "bXNn"}
	if err := j.RecordProposal(ctx, p); err != nil {
		t.Fatal(err)
	}
	retry := p
	retry.ActionID = "a2"
	if err := j.RecordProposal(ctx, retry); err != nil {
		t.Fatalf("a row still proposing is replaced by a new attempt at the same index: %v", err)
	}
	if err := j.UpdateProposal(ctx, "MS", 3, ProposalUpdate{State: ProposalProposed}); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordProposal(ctx, p); err == nil {
		t.Fatal("a proposal seen on chain was replaced")
	}
	if err := j.UpdateProposal(ctx, "MS", 3, ProposalUpdate{State: ProposalApproved, Approvers: "A,B"}); err != nil {
		t.Fatal(err)
	}
	open, err := j.Proposals(ctx, ProposalFilter{Open: true, Policy: "pol", Target: "V"})
	if err != nil || len(open) != 1 || open[0].State != ProposalApproved || open[0].Approvers != "A,B" ||
		open[0].ActionID != "a2" || open[0].ApprovedAt.IsZero() {
		t.Fatalf("open proposals %+v, %v", open, err)
	}
	if err := j.UpdateProposal(ctx, "MS", 3, ProposalUpdate{State: ProposalExecuted, ExecuteSig: "sig"}); err != nil {
		t.Fatal(err)
	}
	if open, _ := j.Proposals(ctx, ProposalFilter{Open: true}); len(open) != 0 {
		t.Fatalf("an executed proposal is open: %+v", open)
	}
	if act, err := j.Get(ctx, "a2"); err != nil || act.Rule != ProposalRule(ProposalExecuted) {
		t.Fatalf("the proposal's action has rule %q, want %q", act.Rule, ProposalRule(ProposalExecuted))
	}
	all, _ := j.Proposals(ctx, ProposalFilter{})
	if len(all) != 1 || all[0].SettledAt.IsZero() || all[0].ExecuteSig != "sig" || all[0].Approvers != "A,B" {
		t.Fatalf("settled proposal %+v", all)
	}
	if err := j.UpdateProposal(ctx, "MS", 4, ProposalUpdate{State: ProposalProposed}); err == nil {
		t.Fatal("updated a proposal never journaled")
	}
}

// TestProposalSettlesItsAction: the action whose proposal landed is
// landed; when the members reject, cancel or let the proposal go stale it
// fails with the proposal's rule (its attempt stays landed), and when the
// proposal is executed it stays landed.
func TestProposalSettlesItsAction(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	for i, c := range []struct {
		settled ProposalState
		want    State
	}{
		{ProposalRejected, StateFailed},
		{ProposalCancelled, StateFailed},
		{ProposalSuperseded, StateFailed},
		{ProposalExecuted, StateLanded},
	} {
		id := "act-" + string(c.settled)
		if err := runSteps(ctx, j, id, scenarios[0].steps); err != nil {
			t.Fatal(err)
		}
		if err := j.RecordProposal(ctx, Proposal{Multisig: "MS", Index: uint64(i + 1), ActionID: id, Policy: "pol", Target: "V", Message: "bXNn"}); err != nil {
			t.Fatal(err)
		}
		for _, s := range []ProposalState{ProposalProposed, c.settled} {
			if err := j.UpdateProposal(ctx, "MS", uint64(i+1), ProposalUpdate{State: s, Detail: "by A,B"}); err != nil {
				t.Fatal(err)
			}
		}
		act, err := j.Get(ctx, id)
		if err != nil || act.State != c.want || act.Rule != ProposalRule(c.settled) || act.Detail != "by A,B" {
			t.Errorf("%s: action %s %s %q (%v), want %s %s", c.settled, act.State, act.Rule, act.Detail, err, c.want, ProposalRule(c.settled))
		}
		if n := len(act.Attempts); n == 0 || act.Attempts[n-1].Outcome != StateLanded {
			t.Errorf("%s: the proposal's attempt %+v, want it landed still", c.settled, act.Attempts)
		}
	}
}
