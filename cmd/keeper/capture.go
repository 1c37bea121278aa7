package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/keeper-project/keeper/keeper"
)

// capturePlans writes a `keeper test` file per policy into dir: the state
// the plan read, and what the policy would do in it, as expectations.
func capturePlans(s *streams, plans []keeper.PolicyPlan, dir string) int {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(s.err, "keeper plan: --capture: %v\n", err)
		return exitUsage
	}
	for _, p := range plans {
		if p.Err != "" {
			fmt.Fprintf(s.err, "keeper plan: --capture: %s not captured: %s\n", p.Policy, p.Err)
			continue
		}
		path := filepath.Join(dir, p.Policy+".test.yaml")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			fmt.Fprintf(s.err, "keeper plan: --capture: %v (an existing test is never overwritten)\n", err)
			return exitUsage
		}
		err = p.Capture(f, dir)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(s.err, "keeper plan: --capture %s: %v\n", path, err)
			return exitFailed
		}
		fmt.Fprintf(s.err, "keeper plan: captured %s in %s (run it with keeper test %s)\n", p.Policy, path, path)
	}
	return exitOK
}
