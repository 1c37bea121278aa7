package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
)

// pubkeyCommand defines `keeper pubkey`'s flags on fs and returns its body.
func pubkeyCommand(fs *flag.FlagSet) action {
	cf := addConfigFlags(fs)
	cf.quiet = true
	return cf.withConfig(func(_ context.Context, s *streams, cfg *config.Config, _ []string) int {
		pk, err := keeper.WalletOf(cfg)
		if err != nil {
			fmt.Fprintln(s.err, err)
			return exitUsage
		}
		fmt.Fprintln(s.out, pk)
		return exitOK
	})
}
