package examples_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestE2EOneOwnerPerJournal starts the daemon, then a second `keeper run` on the same journal: the
// second exits 2 naming the first's pid and acts on nothing, `history` still reads, and once the
// daemon stops the journal can be owned again.
func TestE2EOneOwnerPerJournal(t *testing.T) {
	needBinary(t)
	t.Parallel()
	w := newWorkspace(t, startSim(t))
	cfg := w.config(t, "lock", []string{autoRepay})
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	d.waitStarted(t)
	for _, args := range [][]string{{"run", "--once"}, {"run"}} {
		r := runKeeper(t, w.dir, append(args, "--config", cfg, "--log-format", "json")...).wantExit(t, 2)
		holder := fmt.Sprintf("pid %d", d.cmd.Process.Pid)
		if !strings.Contains(r.stderr, "owned by another keeper") || !strings.Contains(r.stderr, holder) {
			t.Errorf("keeper %s beside a running daemon: stderr does not name the owner (%s):\n%s", strings.Join(args, " "), holder, r.stderr)
		}
	}
	runKeeper(t, w.dir, "history", "--config", cfg).wantExit(t, 0)
	if code := d.stop(t); code != 0 {
		t.Fatalf("daemon exited %d; stderr:\n%s", code, d.stderr.String())
	}
	w.once(t, cfg)
}
