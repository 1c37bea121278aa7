package examples_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2ESystemdNotify runs the daemon as a Type=notify unit with a
// watchdog would, on a fake notify socket: READY=1 once it is scheduled,
// WATCHDOG=1 pings while the scheduler fires on time, STOPPING=1 when an
// interrupt stops it.
func TestE2ESystemdNotify(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	cfg := w.config(t, "systemd", []string{autoRepay})
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := keeperCmdWith(ctx, procOptions{env: []string{"NOTIFY_SOCKET=" + sock, "WATCHDOG_USEC=400000"}},
		w.dir, "run", "--config", cfg, "--log-format", "json")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	await := func(state string) {
		t.Helper()
		buf := make([]byte, 4096)
		for {
			_ = conn.SetReadDeadline(time.Now().Add(procTimeout))
			n, err := conn.Read(buf)
			if err != nil {
				t.Fatalf("no %s on the notify socket: %v; stderr:\n%s", state, err, stderr.String())
			}
			if strings.Contains(string(buf[:n]), state) {
				return
			}
		}
	}
	await("READY=1")
	await("WATCHDOG=1")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	await("STOPPING=1")
	if err := <-done; err != nil {
		t.Errorf("keeper run: %v; stderr:\n%s", err, stderr.String())
	}
}
