package journal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// TestOwnerLockDiesWithProcess kills an owning process with SIGKILL and shows the lock free at once:
// the operating system releases it, so a crashed daemon never blocks its restart.
func TestOwnerLockDiesWithProcess(t *testing.T) {
	sqliteOnly(t)
	dsn := tempDSN(t)
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
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, ownerReady) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("owner child: %q, %v", line, err)
	}
	j := openDSN(t, dsn, newClock())
	if err := j.Own(); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Fatalf("while the child owns it: err = %v, want locked by pid %d", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := j.Own(); err != nil {
		t.Errorf("after the owner was killed: %v", err)
	}
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
