package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/policies/policytest"
)

func testCommand() command {
	return command{
		name:    "test",
		usage:   "FILE...",
		summary: "run policy unit tests: given market state, each policy must plan exactly the expected actions",
		flags: func(fs *flag.FlagSet) func(context.Context, *streams, []string) int {
			return func(_ context.Context, s *streams, args []string) int {
				if len(args) == 0 {
					fmt.Fprintln(s.err, "keeper test: name at least one test file")
					return exitUsage
				}
				report := policytest.RunFiles(args)
				report.Write(s.out)
				if !report.OK() {
					return exitFailed
				}
				return exitOK
			}
		},
	}
}
