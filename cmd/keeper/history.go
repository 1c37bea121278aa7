package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/explorer"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
)

// historyCommand defines `keeper history`'s flags on fs and returns its body.
func historyCommand(fs *flag.FlagSet) action {
	cf := addConfigFlags(fs)
	cf.quiet = true // history sends nothing: the notifiers' secrets may be absent
	policy := fs.String("policy", "", "only this policy's actions")
	since := fs.String("since", "", "only actions since: a duration back (24h), a date (2026-11-01) or an RFC 3339 time")
	asJSON := fs.Bool("json", false, "print JSON, one action per line")
	limit := fs.Int("limit", 100, "at most this many actions (0: all)")
	return func(ctx context.Context, s *streams, _ []string) int {
		from, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(s.err, "keeper history: --since: %v\n", err)
			return exitUsage
		}
		cfg, ok := cf.loadOrSay(s)
		if !ok {
			return exitUsage
		}
		if _, err := os.Stat(cfg.JournalPath()); !cfg.Journal.DSN.Shared() && errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(s.out, "no journal at %s yet: keeper has not run with this config\n", cfg.JournalPath())
			return exitOK
		}
		j, ok := openJournal(ctx, s, "history", cfg)
		if !ok {
			return exitUsage
		}
		defer j.Close()
		actions, err := j.List(ctx, journal.Filter{Policy: *policy, Since: from, Limit: *limit})
		if err != nil {
			fmt.Fprintf(s.err, "keeper history: %v\n", err)
			return exitFailed
		}
		incidents, err := j.Incidents(ctx, journal.IncidentFilter{Policy: *policy, Since: from, Limit: *limit})
		if err != nil {
			fmt.Fprintf(s.err, "keeper history: %v\n", err)
			return exitFailed
		}
		proposals, err := j.Proposals(ctx, journal.ProposalFilter{Policy: *policy})
		if err != nil {
			fmt.Fprintf(s.err, "keeper history: %v\n", err)
			return exitFailed
		}
		if len(actions)+len(incidents) == 0 && *policy != "" {
			if msg := unknownPolicy(ctx, j, cfg, *policy); msg != "" {
				fmt.Fprintf(s.err, "keeper history: --policy: %s\n", msg)
				return exitUsage
			}
		}
		links, _ := cfg.Explorer.Links(cfg.Chain.RPCURL) // checked when the config loaded
		if *asJSON {
			if code := printHistoryJSON(s.out, actions, links); code != exitOK {
				return code
			}
			if code := printIncidentsJSON(s.out, incidents); code != exitOK {
				return code
			}
			return printProposalsJSON(s.out, proposals, time.Now())
		}
		printHistory(s.out, actions, links)
		printIncidents(s.out, incidents)
		printProposals(s.out, proposals, time.Now())
		return exitOK
	}
}

// unknownPolicy says why name is no policy: neither the config's policy
// files nor the journal know it. It returns "" for a known name.
func unknownPolicy(ctx context.Context, j *journal.Journal, cfg *config.Config, name string) string {
	if ever, err := j.List(ctx, journal.Filter{Policy: name, Limit: 1}); err != nil || len(ever) > 0 {
		return ""
	}
	notifiers := make([]string, len(cfg.Notifiers))
	for i, n := range cfg.Notifiers {
		notifiers[i] = n.Name
	}
	var names []string
	if ps, err := keeper.LoadPolicies(cfg.Dir, cfg.Policies, notifiers); err == nil {
		for _, p := range ps {
			if p.Name == name {
				return ""
			}
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("no policy %q in the config's policy files or the journal", name)
	}
	return fmt.Sprintf("no policy %q in the config's policy files or the journal (the files name %s)", name, strings.Join(names, ", "))
}

// parseSince reads --since: empty (all), a duration back from now, a date
// (UTC midnight) or an RFC 3339 time.
func parseSince(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a duration (24h), a date (2026-11-01) or an RFC 3339 time", v)
}

func printHistory(w io.Writer, actions []journal.Action, links explorer.Explorer) {
	if len(actions) == 0 {
		fmt.Fprintln(w, "no actions journaled")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED (UTC)\tPOLICY\tKIND\tTARGET\tSTATE\tATTEMPTS\tREASON")
	for _, a := range actions {
		reason := a.Reason
		if a.Rule != "" || a.Detail != "" {
			reason += " [" + strings.TrimSpace(string(a.Rule)+" "+a.Detail) + "]"
		}
		if a.DryRun {
			reason = "(dry run) " + reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", a.CreatedAt.UTC().Format(time.DateTime), a.Policy, a.Kind,
			a.Target, a.State, a.AttemptCount, reason)
		for _, at := range a.Attempts {
			for _, sig := range at.Signatures {
				tx := sig.Signature
				if link := links.Tx(tx); link != "" {
					tx += " " + link
				}
				fmt.Fprintf(tw, "\t\t\t\t\t#%d\ttx %s\n", at.Number, tx)
			}
			for _, tip := range at.Tips {
				fmt.Fprintf(tw, "\t\t\t\t\t#%d\ttip %s (%s)\n", at.Number, tip.Signature, policies.FormatSOL(tip.Lamports))
			}
			if at.FeeLamports > 0 || at.TipLamports > 0 {
				fmt.Fprintf(tw, "\t\t\t\t\t#%d\tpaid fee %s, tip %s\n", at.Number, policies.FormatSOL(at.FeeLamports), policies.FormatSOL(at.TipLamports))
			}
		}
	}
	tw.Flush()
}

// historyRecord is the JSON shape of one action: stable for scripts.
type historyRecord struct {
	ID         string          `json:"id"`
	Policy     string          `json:"policy"`
	Kind       string          `json:"kind"`
	Target     string          `json:"target"`
	State      string          `json:"state"`
	Reason     string          `json:"reason"`
	Rule       string          `json:"rule,omitempty"`
	Detail     string          `json:"detail,omitempty"`
	DryRun     bool            `json:"dry_run"`
	Mint       string          `json:"mint,omitempty"`
	Amount     uint64          `json:"amount,omitempty"`
	Inputs     json.RawMessage `json:"inputs,omitempty"`
	Attempts   int             `json:"attempts"`
	Signatures []string        `json:"signatures,omitempty"`
	Links      []string        `json:"links,omitempty"` // the signatures' explorer links, in order
	Tips       []historyTip    `json:"tips,omitempty"`
	// FeeLamports and TipLamports are what the attempts paid: network fees
	// (base and priority) and the landed Jito tip.
	FeeLamports uint64     `json:"fee_lamports"`
	TipLamports uint64     `json:"tip_lamports"`
	CreatedAt   time.Time  `json:"created_at"`
	SettledAt   *time.Time `json:"settled_at,omitempty"`
}

// historyTip is the JSON shape of one of keeper's own Jito tip
// transactions: at most one tip of an attempt can land, with its bundle.
type historyTip struct {
	Attempt   int    `json:"attempt"`
	Signature string `json:"signature"`
	Account   string `json:"account"`
	Lamports  uint64 `json:"lamports"`
}

func printHistoryJSON(w io.Writer, actions []journal.Action, links explorer.Explorer) int {
	enc := json.NewEncoder(w)
	for _, a := range actions {
		r := historyRecord{ID: a.ID, Policy: a.Policy, Kind: a.Kind, Target: a.Target, State: string(a.State),
			Reason: a.Reason, Rule: string(a.Rule), Detail: a.Detail, DryRun: a.DryRun, Mint: a.Mint, Amount: a.Amount,
			Inputs: a.Inputs, Attempts: a.AttemptCount, CreatedAt: a.CreatedAt}
		if !a.SettledAt.IsZero() {
			r.SettledAt = &a.SettledAt
		}
		for _, at := range a.Attempts {
			r.FeeLamports += at.FeeLamports
			r.TipLamports += at.TipLamports
			for _, sig := range at.Signatures {
				r.Signatures = append(r.Signatures, sig.Signature)
			}
			for _, tip := range at.Tips {
				r.Tips = append(r.Tips, historyTip{Attempt: at.Number, Signature: tip.Signature, Account: tip.Account, Lamports: tip.Lamports})
			}
		}
		r.Links = links.Txs(r.Signatures)
		if err := enc.Encode(r); err != nil {
			return exitFailed
		}
	}
	return exitOK
}

// printIncidents writes the alert incidents as a table after the actions.
func printIncidents(w io.Writer, incidents []journal.Incident) {
	if len(incidents) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nALERT OPENED (UTC)\tRESOLVED (UTC)\tPOLICY\tSEVERITY\tTARGET\tMESSAGE")
	for _, in := range incidents {
		resolved := "open"
		if !in.Open() {
			resolved = in.ResolvedAt.UTC().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", in.OpenedAt.UTC().Format(time.DateTime), resolved, in.Policy,
			in.Severity, in.Target, in.Message)
	}
	tw.Flush()
}

// incidentRecord is the JSON shape of one alert incident; "incident" (its
// number) tells it from an action's line.
type incidentRecord struct {
	Incident   int64      `json:"incident"`
	Policy     string     `json:"policy"`
	Target     string     `json:"target"`
	Severity   string     `json:"severity"`
	Message    string     `json:"message"`
	OpenedAt   time.Time  `json:"opened_at"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

func printIncidentsJSON(w io.Writer, incidents []journal.Incident) int {
	enc := json.NewEncoder(w)
	for _, in := range incidents {
		r := incidentRecord{Incident: in.ID, Policy: in.Policy, Target: in.Target, Severity: in.Severity,
			Message: in.Message, OpenedAt: in.OpenedAt}
		if !in.Open() {
			r.ResolvedAt = &in.ResolvedAt
		}
		if err := enc.Encode(r); err != nil {
			return exitFailed
		}
	}
	return exitOK
}
