package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/policies"
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
			sayErr(s.err, err)
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
		for _, p := range ps {
			for _, w := range p.Warnings() {
				fmt.Fprintln(s.err, "warning: "+w.Error())
			}
		}
		if cfg != nil && err == nil {
			if err := keeper.CheckPrograms(cfg, ps); err != nil {
				fail(err, exitFailed)
			}
			if err := keeper.CheckTriggers(cfg, ps); err != nil {
				fail(err, exitFailed)
			}
			if !*online {
				if err := checkAmountsOffline(s, cfg, ps); err != nil {
					fail(err, exitFailed)
				}
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
		fmt.Fprintf(s.out, "%s: OK: config and %d %s (%d enabled), %s\n", cfg.File, len(ps), plural(len(ps), "policy", "policies"), enabled, how)
		return exitOK
	}
}

// checkAmountsOffline resolves the amounts written with a unit in the mints
// their policies name, with what the config's tokens say: another token (a
// symbol the config gives the mint another, a mint address) or more
// decimals than the mint has is an error, as run refuses it. A mint the
// config does not describe needs the chain: check says so on stderr and
// leaves it to check --online.
func checkAmountsOffline(s *streams, cfg *config.Config, ps []*policies.Policy) error {
	known := map[string]policies.Token{}
	for mint, t := range cfg.Tokens {
		known[mint] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals}
	}
	var bad keeper.AmountsError
	for _, p := range ps {
		for _, u := range p.AmountsWithUnits() {
			for _, mint := range u.Mints {
				_, err := u.Amount.Units(mint, known)
				_, described := known[mint]
				switch {
				case err == nil:
				case described || errors.As(err, new(*policies.OtherTokenError)):
					bad.Problems = append(bad.Problems, fmt.Sprintf("policy %s: %s %v", p.Name, u.Path, err))
				default:
					fmt.Fprintf(s.err, "keeper check: warning: policy %s: %s %s is not checked offline: the config's tokens do not describe %s (check --online reads it from the chain)\n",
						p.Name, u.Path, u.Amount, mint)
				}
			}
		}
	}
	if len(bad.Problems) > 0 {
		return &bad
	}
	return nil
}
