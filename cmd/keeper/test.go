package main

import (
	"context"

	"github.com/keeper-project/keeper/policies/policytest"
)

// runTests is `keeper test`: it runs the policy test files args.
func runTests(_ context.Context, s *streams, args []string) int {
	report := policytest.RunFiles(args)
	report.Write(s.out)
	if !report.OK() {
		return exitFailed
	}
	return exitOK
}
