package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
)

// pubkeyCommand defines `keeper pubkey`'s flags on fs and returns its body.
func pubkeyCommand(fs *flag.FlagSet) action {
	cf := addConfigFlags(fs)
	cf.quiet = true
	return func(_ context.Context, s *streams, _ []string) int {
		cfg, ok := cf.loadOrSay(s)
		if !ok {
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
}
