package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Backup writes a consistent copy of the journal to dest, a new file, while
// the journal stays in use (SQLite's VACUUM INTO reads one snapshot: a
// daemon writing meanwhile neither waits nor tears the copy). The copy is
// a journal keeper opens, recovers from and continues with.
func (j *Journal) Backup(ctx context.Context, dest string) error {
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: backup: %s exists (a backup never overwrites)", dest)
	}
	if _, err := j.db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("journal: backup to %s: %w", dest, err)
	}
	if err := os.Chmod(dest, 0o600); err != nil {
		return fmt.Errorf("journal: backup: %w", err)
	}
	return nil
}
