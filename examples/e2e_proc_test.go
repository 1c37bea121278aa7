package examples_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Bounds on the processes the end-to-end tests run. They are deadlines for a hung process, not
// timing assertions: a healthy run finishes in well under a second.
const (
	procTimeout  = 45 * time.Second // one keeper command
	startTimeout = 30 * time.Second // until `keeper sim` prints its addresses
	waitDelay    = 5 * time.Second  // after an interrupt, until the process is killed
)

// result is how a finished keeper command ended.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

// procOptions change how a keeper process is started: another binary, more environment.
type procOptions struct {
	bin string   // the binary; keeperBin when empty
	env []string // added to the environment
}

// keeperCmdWith returns keeper (or o's binary) with args in dir; when ctx ends it is interrupted,
// then killed after waitDelay.
func keeperCmdWith(ctx context.Context, o procOptions, dir string, args ...string) *exec.Cmd {
	bin := o.bin
	if bin == "" {
		bin = keeperBin
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TMPDIR="+dir, "NO_COLOR=1"), o.env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// runKeeper runs keeper with args in dir to its end.
func runKeeper(t testing.TB, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), procTimeout)
	defer cancel()
	r, err := runUntilDone(ctx, dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runUntilDone runs keeper with args until it exits or ctx ends. The error says why a process could
// not start or did not exit by itself.
func runUntilDone(ctx context.Context, dir string, args ...string) (result, error) {
	return runUntilDoneWith(ctx, procOptions{}, dir, args...)
}

// runUntilDoneWith is runUntilDone with o.
func runUntilDoneWith(ctx context.Context, o procOptions, dir string, args ...string) (result, error) {
	var out, errb bytes.Buffer
	cmd := keeperCmdWith(ctx, o, dir, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	if ctx.Err() != nil {
		return r, fmt.Errorf("keeper %s did not exit by itself (%w); stderr:\n%s", strings.Join(args, " "), ctx.Err(), r.stderr)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return r, fmt.Errorf("keeper %s: %w; stderr:\n%s", strings.Join(args, " "), err, r.stderr)
	}
	if race := raceReport(r.stderr); race != "" {
		return r, fmt.Errorf("keeper %s: the race detector reported:\n%s", strings.Join(args, " "), race)
	}
	r.code = cmd.ProcessState.ExitCode()
	return r, nil
}

// wantExit fails the test unless r exited with code.
func (r result) wantExit(t testing.TB, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("keeper %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, code, r.stdout, r.stderr)
	}
	return r
}

// daemon is a keeper process left running; t.Cleanup always ends it.
type daemon struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has been waited for
	err    error         // Wait's error, set before exited closes
	stderr *syncBuffer
}

// startKeeper starts keeper with args in dir and leaves it running.
func startKeeper(t testing.TB, dir string, stdout *syncBuffer, args ...string) *daemon {
	t.Helper()
	return startKeeperWith(t, procOptions{}, dir, stdout, args...)
}

// startKeeperWith is startKeeper with o.
func startKeeperWith(t testing.TB, o procOptions, dir string, stdout *syncBuffer, args ...string) *daemon {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d := &daemon{cmd: keeperCmdWith(ctx, o, dir, args...), exited: make(chan struct{}), stderr: &syncBuffer{}}
	d.cmd.Stdout, d.cmd.Stderr = stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start keeper %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-d.exited
		if race := raceReport(d.stderr.String()); race != "" {
			t.Errorf("keeper %s: the race detector reported:\n%s", strings.Join(args, " "), race)
		}
	})
	return d
}

// stop interrupts the process as Ctrl-C would and returns its exit code once it has exited (or was
// killed after procTimeout).
func (d *daemon) stop(t testing.TB) int {
	t.Helper()
	if err := d.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Errorf("interrupt: %v", err)
	}
	select {
	case <-d.exited:
	case <-time.After(procTimeout):
		_ = d.cmd.Process.Kill()
		<-d.exited
		t.Fatalf("keeper did not stop within %s of an interrupt; stderr:\n%s", procTimeout, d.stderr.String())
	}
	return d.cmd.ProcessState.ExitCode()
}

// syncBuffer is a bytes.Buffer safe for a process's output goroutine and the test, which can wait
// for a line to appear in it.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waiters []lineWaiter // guarded by mu
}

// lineWaiter is a pending wait for what was written: ok holds once it is there.
type lineWaiter struct {
	ok func(text string) bool
	ch chan struct{}
}

// Write appends p and wakes the waiters whose line is now complete.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	kept := b.waiters[:0]
	for _, w := range b.waiters {
		if w.ok(b.buf.String()) {
			close(w.ch)
			continue
		}
		kept = append(kept, w)
	}
	b.waiters = kept
	return len(p), nil
}

// String returns everything written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lineReady returns a channel closed once a complete line starting with prefix has been written.
func (b *syncBuffer) lineReady(prefix string) <-chan struct{} {
	return b.lineWhere(func(line string) bool { return strings.HasPrefix(line, prefix) })
}

// lineContaining returns a channel closed once a complete line containing sub has been written
// (a JSON log line, say, whose message is sub).
func (b *syncBuffer) lineContaining(sub string) <-chan struct{} {
	return b.lineWhere(func(line string) bool { return strings.Contains(line, sub) })
}

// lineWhere returns a channel closed once a complete line that match accepts has been written.
func (b *syncBuffer) lineWhere(match func(line string) bool) <-chan struct{} {
	return b.textWhere(func(text string) bool { return hasLineWhere(text, match) })
}

// linesContaining returns a channel closed once n complete lines containing sub have been written.
func (b *syncBuffer) linesContaining(sub string, n int) <-chan struct{} {
	return b.textWhere(func(text string) bool {
		found := 0
		for line := range strings.Lines(text) {
			if strings.HasSuffix(line, "\n") && strings.Contains(line, sub) {
				found++
			}
		}
		return found >= n
	})
}

// textWhere returns a channel closed once ok accepts everything written so far.
func (b *syncBuffer) textWhere(ok func(text string) bool) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan struct{})
	if ok(b.buf.String()) {
		close(ch)
		return ch
	}
	b.waiters = append(b.waiters, lineWaiter{ok: ok, ch: ch})
	return ch
}

// hasLineWhere reports whether text holds a newline-terminated line that match accepts.
func hasLineWhere(text string, match func(line string) bool) bool {
	for line := range strings.Lines(text) {
		if strings.HasSuffix(line, "\n") && match(line) {
			return true
		}
	}
	return false
}

// waitStarted waits for the daemon's "keeper started" line; the test fails if the daemon exits
// or does not start in time.
func (d *daemon) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-d.stderr.lineContaining(`"msg":"keeper started"`):
	case <-d.exited:
		t.Fatalf("daemon exited early; stderr:\n%s", d.stderr.String())
	case <-time.After(procTimeout):
		t.Fatalf("daemon did not start within %s; stderr:\n%s", procTimeout, d.stderr.String())
	}
}
