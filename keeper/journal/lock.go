package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// lockPath is the owner lock file of the database whose real path (symbolic links resolved) is db.
func lockPath(db string) string { return db + ".lock" }

// Own makes this process the journal's only owner, the one that may act: it takes an exclusive
// advisory lock on a file beside the database, which the operating system releases when the
// process ends however it ends, and writes the process id, host and time into it. A second owner
// gets a *LockedError naming the first. Readers (history, plan) do not call Own and are never
// blocked. Close releases the lock. An in-memory journal has nothing to share, and a shared
// (PostgreSQL) journal is led instead of owned (see Campaign); for both Own is a no-op.
//
// The lock is on what the database is, not on the name it was given: the lock file sits beside
// the database's real path, symbolic links resolved, so every symbolic link to one journal maps to
// one lock. A hard link is a second name of the same file (same device and inode) that no path
// resolution reaches, and SQLite keeps a write-ahead log and shared-memory file per name, so two
// names would neither share the lock nor see each other's writes: Own refuses a database file
// with more than one name, naming the owner of the other name when it finds one beside it.
func (j *Journal) Own() error {
	if j.loc.memory() || j.Shared() || j.lock != nil {
		return nil
	}
	db, err := filepath.EvalSymlinks(j.loc.path)
	if err != nil {
		return fmt.Errorf("journal: owner lock: %w", err)
	}
	f, err := takeLock(lockPath(db), os.O_CREATE)
	if err != nil {
		return err
	}
	if err := oneName(db); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := writeHolder(f, j.now()); err != nil {
		return errors.Join(fmt.Errorf("journal: owner lock: %w", err), f.Close())
	}
	j.lock = f
	return nil
}

// takeLock opens the lock file at path (with flag, os.O_CREATE or 0) and locks it, or says who
// holds it.
func takeLock(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: owner lock: %w", err)
	}
	if err := lockFile(f); err != nil {
		holder, _ := os.ReadFile(path)
		return nil, errors.Join(&LockedError{Path: path, Holder: strings.TrimSpace(string(holder))}, f.Close())
	}
	return f, nil
}

// oneName refuses the database file db if it has hard links: with the owner of another name
// when one beside it is locked, else with the number of names.
func oneName(db string) error {
	fi, err := os.Stat(db)
	if err != nil {
		return fmt.Errorf("journal: owner lock: %w", err)
	}
	n := links(fi)
	if n <= 1 {
		return nil
	}
	for _, other := range otherNames(db, fi) {
		f, err := takeLock(lockPath(other), 0)
		if errors.Is(err, ErrLocked) {
			return err
		}
		if err == nil {
			_ = f.Close()
		}
	}
	return fmt.Errorf("journal: %s: the database file has %d names (hard links); SQLite keeps a write-ahead log per name, "+
		"so keepers on two names would act twice and lose writes: with every keeper stopped, remove the other names", db, n)
}

// otherNames returns the other names of the file fi (the database at db) in db's folder.
func otherNames(db string, fi os.FileInfo) []string {
	dir := filepath.Dir(db)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if path == db || !e.Type().IsRegular() {
			continue
		}
		if other, err := os.Stat(path); err == nil && os.SameFile(fi, other) {
			names = append(names, path)
		}
	}
	return names
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
