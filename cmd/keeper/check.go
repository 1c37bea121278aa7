package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
)

func checkCommand() command {
	return command{
		name:    "check",
		usage:   "[--config config.yaml]",
		summary: "validate the config, the key and every policy offline as run would at start; print each error as file:line:col; exit 2 on a config or key error, 1 on a policy error",
		flags: func(fs *flag.FlagSet) func(context.Context, *streams, []string) int {
			path := fs.String("config", "config.yaml", "config file")
			return func(_ context.Context, s *streams, args []string) int {
				if len(args) > 0 {
					fmt.Fprintf(s.err, "keeper check: unexpected arguments %q\n", args)
					return exitUsage
				}
				cfg, err := config.LoadFile(*path)
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
				enabled := 0
				for _, p := range ps {
					if p.Enabled {
						enabled++
					}
				}
				fmt.Fprintf(s.out, "%s: OK: config and %d policies (%d enabled)\n", cfg.File, len(ps), enabled)
				return exitOK
			}
		},
	}
}
