package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/keeper-project/keeper/keeper"
)

// printVersion is `keeper version`.
func printVersion(_ context.Context, s *streams, _ []string) int {
	fmt.Fprintln(s.out, versionLine())
	return exitOK
}

// version returns the module version from build info ("devel" for a local
// build), used in the User-Agent.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}

// versionLine describes the build: version, revision (when the binary was
// built from a VCS checkout), and Go version.
func versionLine() string {
	return fmt.Sprintf("keeper %s (revision %s, %s %s/%s)", version(), keeper.Revision(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
