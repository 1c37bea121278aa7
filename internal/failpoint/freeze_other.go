//go:build failpoint && !linux

package failpoint

import (
	"os"
	"syscall"
)

// freeze stops the process with SIGSTOP and returns once it is continued.
// Unlike Linux's, this version cannot direct the signal at the caller's
// thread, so the caller may run on briefly while the process stops.
func freeze(name string) {
	_, _ = os.Stderr.WriteString("failpoint " + name + ": stopping the process\n")
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
}
