package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
)

// checkCommand defines `keeper check`'s flags on fs and returns its body.
func checkCommand(fs *flag.FlagSet) action {
	cf := addReadOnlyFlags(fs)
	online := fs.Bool("online", false, "also check that the RPC, block engine and market answer, read the mints, programs and trigger accounts the config and policies name from chain.rpc_url, and check the amounts written with a unit (\"300 USDC\") against their symbols and decimals")
	return func(ctx context.Context, s *streams, _ []string) int {
		// Every problem at once: the config's, the key's and the
		// policies' (those even when the config has problems).
		code := exitOK
		fail := func(err error, c int) {
			fmt.Fprintln(s.err, err)
			code = max(code, c)
		}
		cfg, err := cf.load(s)
		var dir string
		var globs, notifiers []string
		if err != nil {
			fail(err, exitUsage)
			dir, globs, notifiers, _ = config.PolicyFiles(cf.path)
		} else {
			if err := keeper.CheckSigner(cfg); err != nil {
				fail(err, exitUsage)
			}
			dir, globs = cfg.Dir, cfg.Policies
			for _, n := range cfg.Notifiers {
				notifiers = append(notifiers, n.Name)
			}
		}
		ps, err := keeper.LoadPolicies(dir, globs, notifiers)
		if err != nil && len(globs) > 0 {
			fail(err, exitFailed)
		}
		if cfg != nil && err == nil {
			if err := keeper.CheckPrograms(cfg, ps); err != nil {
				fail(err, exitFailed)
			}
			if err := keeper.CheckTriggers(cfg, ps); err != nil {
				fail(err, exitFailed)
			}
			if *online && code == exitOK {
				if err := keeper.CheckAmountsOnline(ctx, cfg, ps); err != nil {
					fail(err, exitFailed)
				}
				if err := keeper.CheckOnline(ctx, cfg, ps); err != nil {
					fail(err, exitFailed)
				}
				warnings, err := keeper.CheckSquadsMembers(ctx, cfg, ps)
				for _, w := range warnings {
					fmt.Fprintln(s.err, "WARNING:", w)
				}
				if err != nil {
					fail(err, exitFailed)
				}
			}
		}
		if code != exitOK {
			return code
		}
		enabled := 0
		for _, p := range ps {
			if p.Enabled {
				enabled++
			}
		}
		how := "offline"
		if *online {
			how = "RPC, block engine and market answering, mints and programs on chain, amounts checked"
		}
		fmt.Fprintf(s.out, "%s: OK: config and %d policies (%d enabled), %s\n", cfg.File, len(ps), enabled, how)
		return exitOK
	}
}
