package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/trace"
	"syscall"
	"time"
)

// flightRecorderEnv names the environment variable that, when it holds a
// directory, makes the process keep the last seconds of its execution trace
// in memory and write them to a file in that directory on SIGUSR1. It is a
// diagnostic for tests (the soak test uses it to see where a slow second of
// the daemon and the simulator went); it has no flag and serves nothing.
const flightRecorderEnv = "KEEPER_FLIGHT_RECORDER"

// startFlightRecorder starts the flight recorder when flightRecorderEnv is
// set, until ctx ends. Each SIGUSR1 writes the window, about the last 15
// seconds, to DIR/PROGRAM-PID-UNIXSECONDS.trace (go tool trace reads it).
func startFlightRecorder(ctx context.Context, program string) {
	dir := os.Getenv(flightRecorderEnv)
	if dir == "" {
		return
	}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 15 * time.Second, MaxBytes: 64 << 20})
	if err := fr.Start(); err != nil {
		slog.Warn("Flight recorder not started", "err", err)
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		defer signal.Stop(sig)
		defer fr.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
				if err := writeFlightRecord(fr, dir, program); err != nil {
					slog.Warn("Flight record not written", "err", err)
				}
			}
		}
	}()
}

// writeFlightRecord writes fr's window to a new file in dir.
func writeFlightRecord(fr *trace.FlightRecorder, dir, program string) error {
	name := filepath.Join(dir, fmt.Sprintf("%s-%d-%d.trace", program, os.Getpid(), time.Now().Unix()))
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("flight record: %w", err)
	}
	if _, err := fr.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("flight record %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("flight record %s: %w", name, err)
	}
	return nil
}
