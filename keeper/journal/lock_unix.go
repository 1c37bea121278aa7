//go:build unix

package journal

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking flock on f; it fails at once if another open file
// description holds it.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
