package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
)

func pubkeyCommand() command {
	return command{
		name:    "pubkey",
		usage:   "[--config config.yaml]",
		summary: "print the wallet's public key (signer.pubkey, or the key's public half)",
		flags: func(fs *flag.FlagSet) func(context.Context, *streams, []string) int {
			cf := addConfigFlags(fs)
			cf.quiet = true
			return func(_ context.Context, s *streams, args []string) int {
				if len(args) > 0 {
					fmt.Fprintf(s.err, "keeper pubkey: unexpected arguments %q\n", args)
					return exitUsage
				}
				cfg, err := cf.load(s)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				pk, err := keeper.WalletOf(cfg)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				fmt.Fprintln(s.out, pk)
				return exitOK
			}
		},
	}
}
