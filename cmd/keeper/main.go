// Command keeper is a policy-driven automation daemon for a Solana lending
// market. Run `keeper help` for the subcommands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], &streams{out: os.Stdout, err: os.Stderr}))
}
