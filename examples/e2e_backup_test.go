package examples_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EBackupWhileRunning lands a repay, takes `keeper backup` while the
// daemon runs on the journal, and restores the copy as the journal of a new
// keeper: its history holds the repay, and its first pass recovers and
// repays nothing twice.
func TestE2EBackupWhileRunning(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 12)
	cfg := w.config(t, "backup", []string{autoRepay})
	w.once(t, cfg)
	acts := w.landedOnce(t, cfg, s.state(t), map[string]string{"auto-repay": s.state(t).Loans["repay-me"].Address})

	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	d.waitStarted(t)
	backup := filepath.Join(t.TempDir(), "keeper-backup.db")
	out := runKeeper(t, w.dir, "backup", "--config", cfg, backup).wantExit(t, 0).stdout
	if !strings.Contains(out, "copied to "+backup) {
		t.Errorf("backup printed %q", out)
	}
	runKeeper(t, w.dir, "backup", "--config", cfg, backup).wantExit(t, 1) // never overwrites
	if code := d.stop(t); code != 0 {
		t.Fatalf("daemon exited %d; stderr:\n%s", code, d.stderr.String())
	}

	restored := w.configEdited(t, "restored", []string{autoRepay}, func(c map[string]any) {
		section(c, "journal")["dsn"] = "sqlite:" + backup
	})
	hist := runKeeper(t, w.dir, "history", "--config", restored).wantExit(t, 0).stdout
	if !strings.Contains(hist, acts["auto-repay"].Target) || !strings.Contains(hist, "landed") {
		t.Errorf("the restored journal's history lacks the repay:\n%s", hist)
	}
	w.once(t, restored)
	w.nothingNew(t, restored, s.state(t))
}
