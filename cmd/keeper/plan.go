package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/policies"
)

// exitWouldAct is plan --detailed-exitcode's status when some policy would
// act: 0 then means nothing to do, 1 a policy could not be evaluated or can
// never act on a target as written.
const exitWouldAct = 3

// planCommand defines `keeper plan`'s flags on fs and returns its body.
func planCommand(fs *flag.FlagSet) action {
	cf := addReadOnlyFlags(fs)
	cf.quiet = true // plan sends nothing: the notifiers' secrets may be absent
	asJSON := fs.Bool("json", false, "print JSON")
	detailed := fs.Bool("detailed-exitcode", false, "exit 3 when some policy would act, 0 when none would (1 and 2 as usual: 1 also when a policy can never act as written)")
	capture := fs.String("capture", "", "write into `DIR` a test file (run it with keeper test) per policy, from the state read and what the policy would do")
	return func(ctx context.Context, s *streams, _ []string) int {
		k, ok := cf.openReadOnly(s)
		if !ok {
			return exitUsage
		}
		defer k.Close()
		plans, err := k.Plan(ctx)
		if err != nil {
			sayErr(s.err, err)
			return exitUsage
		}
		if *capture != "" {
			if code := capturePlans(s, plans, *capture); code != exitOK {
				return code
			}
		}
		return printPlan(s, plans, *asJSON, *detailed)
	}
}

// printPlan prints plans and returns plan's exit status.
func printPlan(s *streams, plans []keeper.PolicyPlan, asJSON, detailed bool) int {
	if asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(planJSON(plans)); err != nil {
			return exitFailed
		}
	} else {
		writePlan(s.out, plans)
	}
	acting := 0
	for _, p := range plans {
		if p.Err != "" || neverActs(p) > 0 {
			return exitFailed
		}
		acting += len(p.Actions)
	}
	if detailed && acting > 0 {
		return exitWouldAct
	}
	return exitOK
}

func writePlan(w io.Writer, plans []keeper.PolicyPlan) {
	if len(plans) == 0 {
		fmt.Fprintln(w, "no enabled policies")
	}
	for _, p := range plans {
		mode := ""
		if p.DryRun {
			mode = " (dry run)"
		}
		fmt.Fprintf(w, "%s [%s]%s\n", p.Policy, p.Kind, mode)
		for _, tr := range p.Triggers {
			fmt.Fprintf(w, "  trigger %s: %s\n", tr.Trigger, lastFiring(tr))
		}
		for _, pr := range p.Proposals {
			fmt.Fprintf(w, "  proposal #%d of %s on %s: %s for %s %s\n", pr.Index, pr.Multisig, pr.Target, pr.State,
				time.Duration(pr.WaitedSeconds)*time.Second, pr.Link)
		}
		if p.Err != "" {
			fmt.Fprintf(w, "  ERROR %s\n", p.Err)
			continue
		}
		switch n := neverActs(p); {
		case n > 0:
			fmt.Fprintf(w, "  WARNING: can never act on %d %s: an amount is in another token than %s (unit below)\n",
				n, plural(n, "target", "targets"), plural(n, "it spends", "they spend"))
		case len(p.Actions) == 0:
			fmt.Fprintln(w, "  nothing to do")
		}
		for _, a := range p.Actions {
			fmt.Fprintf(w, "  + %s %s: %s\n", actionName(a), a.Target, a.Reason)
			if q, ok := p.SaleQuotes[a.ID]; ok {
				fmt.Fprintf(w, "      %s\n", q.Summary)
			}
			if a.Kind.Writes() {
				fmt.Fprintf(w, "      lands %s\n", a.Submit.Route(a.Kind))
			}
		}
		for _, sk := range p.Skipped {
			fmt.Fprintf(w, "  - %s %s: %s\n", sk.Reason, sk.Target, sk.Detail)
		}
	}
	if len(plans) > 0 {
		fmt.Fprintln(w, "\n"+planSummary(plans))
	}
}

// actionNames say what each market endpoint's action does, for plan's
// lines; --json keeps the endpoint's name (docs/assumptions.md).
var actionNames = map[string]string{
	"E1":  "update a strategy of vault",
	"E2":  "repay loan",
	"E4":  "move position",
	"E8":  "claim fees of position",
	"E9":  "withdraw from a strategy of vault",
	"E10": "claim withdrawal request",
}

// actionName says what a planned action is: "repay loan", "alert
// (critical)".
func actionName(a policies.Action) string {
	if a.Alert != nil {
		return "alert (" + string(a.Alert.Severity) + ")"
	}
	if name, ok := actionNames[a.Request.Endpoint()]; ok {
		return name
	}
	return string(a.Kind)
}

// planSummary is the last line of a plan, in Terraform's manner: "3
// actions: 1 repay, 2 claim-withdrawals; 5 policies nothing to do".
func planSummary(plans []keeper.PolicyPlan) string {
	byKind := map[string]int{}
	actions, idle, failed, never := 0, 0, 0, 0
	for _, p := range plans {
		switch {
		case p.Err != "":
			failed++
		case neverActs(p) > 0:
			never++
		case len(p.Actions) == 0:
			idle++
		}
		for _, a := range p.Actions {
			byKind[string(a.Kind)]++
			actions++
		}
	}
	var parts []string
	for _, kind := range slices.Sorted(func(yield func(string) bool) {
		for k := range byKind {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%d %s", byKind[kind], kind))
	}
	out := fmt.Sprintf("%d %s", actions, plural(actions, "action", "actions"))
	if actions > 0 {
		out += ": " + strings.Join(parts, ", ")
	}
	out += fmt.Sprintf("; %d %s nothing to do", idle, plural(idle, "policy", "policies"))
	if failed > 0 {
		out += fmt.Sprintf("; %d could not be evaluated", failed)
	}
	if never > 0 {
		out += fmt.Sprintf("; WARNING: %d %s can never act as written (an amount in another token)", never, plural(never, "policy", "policies"))
	}
	return out
}

// neverActs counts p's targets skipped because an amount of the policy is
// in another token than they spend: the policy can never act on them until
// the amount is rewritten.
func neverActs(p keeper.PolicyPlan) int {
	n := 0
	for _, s := range p.Skipped {
		if s.Reason == policies.SkipUnit {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The JSON of a plan, in snake_case. A request keeps the market API's own
// body, as it would be sent.
type (
	policyPlanJSON struct {
		Policy  string       `json:"policy"`
		Kind    string       `json:"kind"`
		DryRun  bool         `json:"dry_run"`
		Actions []actionJSON `json:"actions"`
		Skipped []skipJSON   `json:"skipped"`
		Error   string       `json:"error,omitempty"`
		// Triggers are the policy's triggers with their journaled firings.
		Triggers []keeper.PlanTrigger `json:"triggers,omitempty"`
		// Proposals are the policy's open Squads proposals.
		Proposals []keeper.ProposalStatus `json:"proposals,omitempty"`
	}
	actionJSON struct {
		ID          string            `json:"id"`
		Kind        string            `json:"kind"`
		Target      string            `json:"target"`
		Reason      string            `json:"reason"`
		DryRun      bool              `json:"dry_run"`
		Endpoint    string            `json:"endpoint,omitempty"`
		Request     policies.Request  `json:"request"`
		MaxLamports uint64            `json:"max_lamports"`
		MaxOutflow  map[string]uint64 `json:"max_outflow,omitempty"`
		SubmitMode  string            `json:"submit_mode,omitempty"`
		SubmitRoute string            `json:"submit_route,omitempty"`
		Severity    string            `json:"severity,omitempty"`
		Message     string            `json:"message,omitempty"`
		NotifyTo    []string          `json:"notify_to,omitempty"`
		// SaleQuote is the aggregator's quote read at plan time, for a
		// repay from collateral when the swap section is configured.
		SaleQuote *keeper.SaleQuote `json:"sale_quote,omitempty"`
	}
	skipJSON struct {
		Target string `json:"target"`
		Reason string `json:"reason"`
		Detail string `json:"detail"`
	}
)

func planJSON(plans []keeper.PolicyPlan) []policyPlanJSON {
	out := make([]policyPlanJSON, 0, len(plans))
	for _, p := range plans {
		pj := policyPlanJSON{Policy: p.Policy, Kind: p.Kind, DryRun: p.DryRun, Actions: []actionJSON{}, Skipped: []skipJSON{}, Error: p.Err, Triggers: p.Triggers,
			Proposals: p.Proposals}
		for _, a := range p.Actions {
			aj := actionJSON{ID: a.ID, Kind: string(a.Kind), Target: a.Target, Reason: a.Reason, DryRun: a.DryRun,
				Endpoint: a.Request.Endpoint(), Request: a.Request, MaxLamports: a.Bounds.MaxLamports,
				MaxOutflow: a.Bounds.MaxOutflow, SubmitMode: string(a.Submit.Mode), NotifyTo: a.Notify.To}
			if a.Kind.Writes() {
				aj.SubmitRoute = a.Submit.Route(a.Kind)
			}
			if a.Alert != nil {
				aj.Severity, aj.Message = string(a.Alert.Severity), a.Alert.Message
			}
			if q, ok := p.SaleQuotes[a.ID]; ok {
				aj.SaleQuote = &q
			}
			pj.Actions = append(pj.Actions, aj)
		}
		for _, sk := range p.Skipped {
			pj.Skipped = append(pj.Skipped, skipJSON{Target: sk.Target, Reason: string(sk.Reason), Detail: sk.Detail})
		}
		out = append(out, pj)
	}
	return out
}

// lastFiring says when a trigger last fired a run, and how often it did.
func lastFiring(tr keeper.PlanTrigger) string {
	if tr.Fired == 0 {
		return "never fired"
	}
	s := fmt.Sprintf("last fired %s at slot %d", tr.LastFired.UTC().Format(time.RFC3339), tr.LastSlot)
	if tr.Detail != "" {
		s += " (" + tr.Detail + ")"
	}
	return s + fmt.Sprintf("; %d %s", tr.Fired, plural(tr.Fired, "firing", "firings"))
}
