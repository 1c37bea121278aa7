package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/trace"
	"testing"
	"time"
)

// TestWriteFlightRecord checks that a flight record is written as an execution trace file named
// after the program and the process.
func TestWriteFlightRecord(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("an execution trace is already being collected")
	}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: time.Second})
	if err := fr.Start(); err != nil {
		t.Fatal(err)
	}
	defer fr.Stop()
	dir := t.TempDir()
	if err := writeFlightRecord(fr, dir, "keeper-test"); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "keeper-test-*.trace"))
	if err != nil || len(files) != 1 {
		t.Fatalf("trace files %v, %v; want one", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Errorf("%s does not start with an execution trace header: %q", files[0], b[:min(len(b), 16)])
	}
	if err := writeFlightRecord(fr, filepath.Join(dir, "missing"), "keeper-test"); err == nil {
		t.Error("writing into a missing directory did not fail")
	}
}
