package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
)

func checkCommand() command {
	return command{
		name:    "check",
		usage:   "[--config config.yaml] [--online]",
		summary: "validate the config, the key and every policy as run would at start (offline unless --online); print each error as file:line:col; exit 2 on a config or key error, 1 on a policy error",
		flags: func(fs *flag.FlagSet) func(context.Context, *streams, []string) int {
			cf := addReadOnlyFlags(fs)
			online := fs.Bool("online", false, "also read the mints the policies name from chain.rpc_url and check the amounts written with a unit (\"300 USDC\") against their symbols and decimals")
			return func(ctx context.Context, s *streams, args []string) int {
				if len(args) > 0 {
					fmt.Fprintf(s.err, "keeper check: unexpected arguments %q\n", args)
					return exitUsage
				}
				cfg, err := cf.load(s)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				if err := keeper.CheckSigner(cfg); err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				names := make([]string, len(cfg.Notifiers))
				for i, n := range cfg.Notifiers {
					names[i] = n.Name
				}
				ps, err := keeper.LoadPolicies(cfg.Dir, cfg.Policies, names)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitFailed
				}
				if *online {
					if err := keeper.CheckAmountsOnline(ctx, cfg, ps); err != nil {
						fmt.Fprintln(s.err, err)
						return exitFailed
					}
				}
				enabled := 0
				for _, p := range ps {
					if p.Enabled {
						enabled++
					}
				}
				how := "offline"
				if *online {
					how = "amounts checked against the chain"
				}
				fmt.Fprintf(s.out, "%s: OK: config and %d policies (%d enabled), %s\n", cfg.File, len(ps), enabled, how)
				return exitOK
			}
		},
	}
}
