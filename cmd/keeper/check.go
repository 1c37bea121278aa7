package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper/config"
)

func checkCommand() command {
	return command{
		name:    "check",
		usage:   "[--config config.yaml]",
		summary: "validate the config offline; print every error as file:line:col; exit 1 on any",
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
					return exitFailed
				}
				fmt.Fprintf(s.out, "%s: config OK (%d policy globs)\n", cfg.File, len(cfg.Policies))
				return exitOK
			}
		},
	}
}
