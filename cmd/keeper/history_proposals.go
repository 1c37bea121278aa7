package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
)

// printProposals writes keeper's Squads proposals as a table after the
// incidents: each one's step, who approved, and how long it has waited (an
// open one) or waited before it settled.
func printProposals(w io.Writer, ps []journal.Proposal, now time.Time) {
	if len(ps) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nPROPOSED (UTC)\tPOLICY\tMULTISIG\t#\tSTATE\tWAITED\tAPPROVED BY\tDETAIL")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", p.CreatedAt.UTC().Format(time.DateTime), p.Policy, p.Multisig,
			p.Index, p.State, proposalWait(p, now), dash(p.Approvers), dash(p.Detail))
	}
	tw.Flush()
}

// proposalWait is how long p waited: until now while open, until it
// settled otherwise.
func proposalWait(p journal.Proposal, now time.Time) time.Duration {
	end := now
	if !p.SettledAt.IsZero() {
		end = p.SettledAt
	}
	return end.Sub(p.CreatedAt).Round(time.Second)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// proposalRecord is the JSON shape of one proposal; "proposal" (its index)
// tells it from an action's or an incident's line.
type proposalRecord struct {
	Proposal   uint64     `json:"proposal"`
	Multisig   string     `json:"multisig"`
	Policy     string     `json:"policy"`
	Target     string     `json:"target"`
	ActionID   string     `json:"action_id"`
	State      string     `json:"state"`
	Approvers  string     `json:"approvers,omitempty"`
	Detail     string     `json:"detail,omitempty"`
	ExecuteSig string     `json:"execute_signature,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	SettledAt  *time.Time `json:"settled_at,omitempty"`
	WaitedSecs int64      `json:"waited_seconds"`
}

func printProposalsJSON(w io.Writer, ps []journal.Proposal, now time.Time) int {
	enc := json.NewEncoder(w)
	for _, p := range ps {
		r := proposalRecord{Proposal: p.Index, Multisig: p.Multisig, Policy: p.Policy, Target: p.Target, ActionID: p.ActionID,
			State: string(p.State), Approvers: p.Approvers, Detail: p.Detail, ExecuteSig: p.ExecuteSig, CreatedAt: p.CreatedAt,
			WaitedSecs: int64(proposalWait(p, now) / time.Second)}
		if !p.SettledAt.IsZero() {
			r.SettledAt = &p.SettledAt
		}
		if err := enc.Encode(r); err != nil {
			return exitFailed
		}
	}
	return exitOK
}
