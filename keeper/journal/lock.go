package journal

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// ErrLocked is the error (see LockedError) of Own when another process already owns the journal.
var ErrLocked = errors.New("journal is owned by another process")

// LockedError says which process owns a journal that Own could not take.
type LockedError struct {
	// Path is the lock file.
	Path string
	// Holder is what the owner wrote into the lock file (pid, host, start time), or "" if unreadable.
	Holder string
}

// Error names the lock file and its holder.
func (e *LockedError) Error() string {
	who := e.Holder
	if who == "" {
		who = "holder unknown"
	}
	return fmt.Sprintf("journal: %s: owned by another keeper (%s); stop it first, or give this one its own journal.dsn", e.Path, who)
}

// Unwrap returns ErrLocked.
func (e *LockedError) Unwrap() error { return ErrLocked }

// lockPath is the owner lock file of the database at path.
func lockPath(path string) string { return path + ".lock" }

// Own makes this process the journal's only owner, the one that may act: it takes an exclusive
// advisory lock on a file beside the database, which the operating system releases when the
// process ends however it ends, and writes the process id, host and time into it. A second owner
// gets a *LockedError naming the first. Readers (history, plan) do not call Own and are never
// blocked. Close releases the lock. An in-memory journal has nothing to share, and a shared
// (PostgreSQL) journal is led instead of owned (see Campaign); for both Own is a no-op.
func (j *Journal) Own() error {
	if j.loc.memory() || j.shared() || j.lock != nil {
		return nil
	}
	path := lockPath(j.loc.path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("journal: owner lock: %w", err)
	}
	if err := lockFile(f); err != nil {
		holder, _ := os.ReadFile(path)
		return errors.Join(&LockedError{Path: path, Holder: strings.TrimSpace(string(holder))}, f.Close())
	}
	if err := writeHolder(f, j.now()); err != nil {
		return errors.Join(fmt.Errorf("journal: owner lock: %w", err), f.Close())
	}
	j.lock = f
	return nil
}

// writeHolder replaces the lock file's contents with this process's identity.
func writeHolder(f *os.File, now time.Time) error {
	host, _ := os.Hostname()
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(fmt.Appendf(nil, "pid %d on %s since %s\n", os.Getpid(), host, now.UTC().Format(time.RFC3339)), 0)
	return err
}

// unlock releases the owner lock, if held.
func (j *Journal) unlock() error {
	if j.lock == nil {
		return nil
	}
	err := j.lock.Close()
	j.lock = nil
	return err
}
