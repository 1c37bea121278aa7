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
	go func() {
		<-ctx.Done()
		stop() // a second signal now ends the process at once; recovery settles the rest
	}()
	if len(os.Args) > 1 {
		startFlightRecorder(ctx, "keeper-"+os.Args[1])
	}
	os.Exit(run(ctx, os.Args[1:], &streams{out: os.Stdout, err: os.Stderr}))
}
