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

// links returns how many names (hard links) the file fi has.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
