//go:build failpoint

package failpoint

import (
	"os"
	"runtime"
	"syscall"
)

// freeze stops the process with SIGSTOP and returns once it is continued. A
// SIGSTOP sent to the process is taken by one of its threads, the kernel's
// choice, which then stops the others: on a loaded machine the caller's
// thread may run on for milliseconds first, long enough to pass the point
// (a journal write, a send). So the signal goes to the caller's own thread,
// which takes it on its way out of the system call and stops the process
// before it runs another instruction of the caller.
func freeze(name string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, _ = os.Stderr.WriteString("failpoint " + name + ": stopping the process\n")
	_ = syscall.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGSTOP)
}
