package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/keeper-project/keeper/keeper"
)

func planCommand() command {
	return command{
		name:    "plan",
		usage:   "[--config config.yaml] [--json]",
		summary: "read live state and print what each policy would do now, and why; signs nothing",
		flags: func(fs *flag.FlagSet) func(context.Context, *streams, []string) int {
			cf := addReadOnlyFlags(fs)
			cf.quiet = true // plan sends nothing: the notifiers' secrets may be absent
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, s *streams, args []string) int {
				if len(args) > 0 {
					fmt.Fprintf(s.err, "keeper plan: unexpected arguments %q\n", args)
					return exitUsage
				}
				cfg, err := cf.load(s)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				logger, err := newLogger(s.err, "warn", cfg.Log.Format)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				k, err := keeper.New(keeper.Options{Config: cfg, Logger: logger, Version: version(), ReadOnly: true})
				if err != nil {
					fmt.Fprintln(s.err, err)
					if errors.Is(err, os.ErrNotExist) {
						fmt.Fprintln(s.err, keyHint)
					}
					return exitUsage
				}
				defer k.Close()
				return printPlan(ctx, s, k, *asJSON)
			}
		},
	}
}

func printPlan(ctx context.Context, s *streams, k *keeper.Keeper, asJSON bool) int {
	plans, err := k.Plan(ctx)
	if err != nil {
		fmt.Fprintln(s.err, err)
		return exitUsage
	}
	if asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(plans); err != nil {
			return exitFailed
		}
	} else {
		writePlan(s.out, plans)
	}
	for _, p := range plans {
		if p.Err != "" {
			return exitFailed
		}
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
		if p.Err != "" {
			fmt.Fprintf(w, "  ERROR %s\n", p.Err)
			continue
		}
		if len(p.Actions) == 0 {
			fmt.Fprintln(w, "  nothing to do")
		}
		for _, a := range p.Actions {
			what := a.Request.Endpoint()
			if a.Alert != nil {
				what = "alert (" + string(a.Alert.Severity) + ")"
			}
			fmt.Fprintf(w, "  + %s %s: %s\n", what, a.Target, a.Reason)
		}
		for _, sk := range p.Skipped {
			fmt.Fprintf(w, "  - %s %s: %s\n", sk.Reason, sk.Target, sk.Detail)
		}
	}
}
