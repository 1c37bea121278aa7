package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/journal"
)

// TestHistoryShowsProposals: history lists keeper's Squads proposals with
// their state, approvers and wait, in the table and as JSON lines.
func TestHistoryShowsProposals(t *testing.T) {
	dir := t.TempDir()
	cfgPath := writeConfig(t, dir)
	ctx := context.Background()
	j, err := journal.Open(ctx, "sqlite:"+filepath.Join(dir, "j.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := journal.Proposal{Multisig: "MSig", Index: 7, ActionID: "a1", Policy: "track-best-quote", Target: "Vault", Message: "AA=="}
	for i, err := range []error{
		j.RecordProposal(ctx, p),
		j.UpdateProposal(ctx, "MSig", 7, journal.ProposalUpdate{State: journal.ProposalApproved, Approvers: "Alice,Bob"}),
		j.Close(),
	} {
		if err != nil {
			t.Fatalf("journal write %d: %v", i, err)
		}
	}
	code, out, errs := runCLI(t, "history", "--config", cfgPath)
	if code != exitOK {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	for _, want := range []string{"PROPOSED (UTC)", "track-best-quote", "MSig", "approved", "Alice,Bob", "WAITED"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runCLI(t, "history", "--config", cfgPath, "--json")
	var rec proposalRecord
	last := strings.TrimSpace(out)
	last = last[strings.LastIndex(last, "\n")+1:]
	if err := json.Unmarshal([]byte(last), &rec); err != nil || rec.Proposal != 7 || rec.State != "approved" || rec.SettledAt != nil {
		t.Fatalf("JSON line %q: %+v, %v", last, rec, err)
	}
}
