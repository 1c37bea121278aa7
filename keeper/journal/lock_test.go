package journal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ownerChildEnv names the DSN an owner child process owns until it is killed.
const ownerChildEnv = "KEEPER_JOURNAL_OWNER_DSN"

// ownerReady is what the owner child prints once it owns the journal.
const ownerReady = "owner child owns the journal"

// TestOwnIsExclusive shows a second owner refused with the first one named, readers unaffected, and
// the lock free again once the owner closes.
func TestOwnIsExclusive(t *testing.T) {
	sqliteOnly(t)
	dsn := tempDSN(t)
	first := openDSN(t, dsn, newClock())
	if err := first.Own(); err != nil {
		t.Fatalf("first owner: %v", err)
	}
	second := openDSN(t, dsn, newClock())
	err := second.Own()
	var locked *LockedError
	if !errors.As(err, &locked) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second owner: err = %v, want a LockedError", err)
	}
	if want := fmt.Sprintf("pid %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("err = %q, want the holder %q named", err, want)
	}
	if _, err := second.Pending(context.Background()); err != nil {
		t.Errorf("a reader of an owned journal: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := second.Own(); err != nil {
		t.Errorf("owner after the first closed: %v", err)
	}
}

// TestOwnIsExclusiveAcrossNames gives one journal file a second name, by a symbolic link to the
// file, a symbolic link to its folder or a hard link, and shows a second owner through that name
// refused with the first one named: the lock is on the file, not on the name it was opened by. The
// first owner is another process, as with two daemons: SQLite shares one file's locks within a
// process by its inode, and a second name in the same process would confuse it.
func TestOwnIsExclusiveAcrossNames(t *testing.T) {
	sqliteOnly(t)
	tests := []struct {
		name string
		// alias makes a second name for the database file at path.
		alias func(t *testing.T, path string) string
	}{
		{"symbolic link to the file", func(t *testing.T, path string) string {
			alias := filepath.Join(t.TempDir(), "alias.db")
			mustDo(t, os.Symlink(path, alias))
			return alias
		}},
		{"symbolic link to the folder", func(t *testing.T, path string) string {
			dir := filepath.Join(t.TempDir(), "dir")
			mustDo(t, os.Symlink(filepath.Dir(path), dir))
			return filepath.Join(dir, filepath.Base(path))
		}},
		{"hard link beside it", func(t *testing.T, path string) string {
			alias := filepath.Join(filepath.Dir(path), "alias.db")
			mustDo(t, os.Link(path, alias))
			return alias
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn := tempDSN(t)
			first := startOwner(t, dsn)
			second := openDSN(t, "sqlite:"+tt.alias(t, strings.TrimPrefix(dsn, "sqlite:")), newClock())
			err := second.Own()
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("second owner through another name: err = %v, want ErrLocked", err)
			}
			if want := fmt.Sprintf("pid %d", first.Process.Pid); !strings.Contains(err.Error(), want) {
				t.Errorf("err = %q, want the holder %q named", err, want)
			}
		})
	}
}

// TestOwnRefusesHardLinks refuses a journal file with two names even when no one owns either: its
// owners could not exclude each other, and SQLite would give each name its own write-ahead log.
func TestOwnRefusesHardLinks(t *testing.T) {
	sqliteOnly(t)
	dsn := tempDSN(t)
	path := strings.TrimPrefix(dsn, "sqlite:")
	j := openDSN(t, dsn, newClock())
	mustDo(t, os.Link(path, filepath.Join(t.TempDir(), "elsewhere.db")))
	err := j.Own()
	if err == nil || !strings.Contains(err.Error(), "2 names (hard links)") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Own of a file with two names: err = %v, want it refused, naming %s and its 2 names", err, path)
	}
	if _, statErr := os.Stat(lockPath(path)); statErr != nil {
		t.Fatalf("the lock file: %v", statErr)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// mustDo fails the test on err.
func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOwnerLockDiesWithProcess kills an owning process with SIGKILL and shows the lock free at once:
// the operating system releases it, so a crashed daemon never blocks its restart.
func TestOwnerLockDiesWithProcess(t *testing.T) {
	sqliteOnly(t)
	dsn := tempDSN(t)
	child := startOwner(t, dsn)
	j := openDSN(t, dsn, newClock())
	if err := j.Own(); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", child.Process.Pid)) {
		t.Fatalf("while the child owns it: err = %v, want locked by pid %d", err, child.Process.Pid)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if err := j.Own(); err != nil {
		t.Errorf("after the owner was killed: %v", err)
	}
}

// startOwner starts a child process that owns the journal at dsn until it is killed or the test
// ends, and returns once it owns it.
func startOwner(t *testing.T, dsn string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ownerChildEnv+"="+dsn)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, ownerReady) {
		t.Fatalf("owner child: %q, %v", line, err)
	}
	return cmd
}

// TestOwnInMemory is a no-op: nothing else can open a private in-memory journal.
func TestOwnInMemory(t *testing.T) {
	if err := openMemory(t, newClock()).Own(); err != nil {
		t.Fatal(err)
	}
}

// runOwnerChild owns the journal named in its environment, says so, and waits for its stdin to
// close or for its death.
func runOwnerChild() int {
	j, err := Open(context.Background(), os.Getenv(ownerChildEnv), Options{})
	if err == nil {
		err = j.Own()
	}
	if err != nil {
		fmt.Println("owner child:", err)
		return 3
	}
	fmt.Println(ownerReady)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}
