//go:build !unix

package journal

import (
	"errors"
	"os"
)

// lockFile reports that this platform has no advisory file lock keeper relies on: running without
// one would let two daemons act on one journal.
func lockFile(*os.File) error {
	return errors.New("exclusive journal locks need a Unix system")
}

// links is never reached: Own fails at lockFile first on this platform.
func links(os.FileInfo) uint64 { return 1 }
