package examples_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// rusageEnv, set in the environment of a re-executed test binary, names the file it writes the
// resource usage of the command it runs into (runForRusage).
const rusageEnv = "KEEPER_BENCH_RUSAGE_FILE"

// childUsage is what runForRusage writes: the command's peak resident set and CPU time, and the
// wrapper's own peak resident set (VmHWM) when it started the command.
type childUsage struct {
	MaxRSSKiB     int64 `json:"maxrss_kib"`
	UserNanos     int64 `json:"user_ns"`
	SystemNanos   int64 `json:"system_ns"`
	WrapperRSSKiB int64 `json:"wrapper_rss_kib"`
	ExitCode      int   `json:"exit_code"`
}

// runForRusage runs the command args (stdin, stdout and stderr passed through), writes its resource
// usage as JSON to path and returns its exit code.
//
// A benchmark cannot take a process's peak memory from the process the test binary started itself:
// Go starts processes with vfork, and Linux carries the peak resident set of the memory image that
// exec replaces (here the test binary's, hundreds of MiB after generating a large scenario) into the
// new program's ru_maxrss. The test binary re-executed as this wrapper is a fresh, small image, so the
// ru_maxrss of the command it starts is the command's own (its wrapper_rss_kib says how small).
func runForRusage(path string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "rusage wrapper: no command")
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	hwm := ownPeakKiB()
	err := cmd.Run()
	u := childUsage{WrapperRSSKiB: hwm, ExitCode: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.MaxRSSKiB, u.UserNanos, u.SystemNanos = ru.Maxrss, ru.Utime.Nano(), ru.Stime.Nano()
	}
	if b, jerr := json.Marshal(u); jerr == nil {
		_ = os.WriteFile(path, b, 0o644)
	}
	if err != nil && u.ExitCode == 0 {
		u.ExitCode = 1
	}
	return u.ExitCode
}

// ownPeakKiB is this process's peak resident set as its memory image counts it (VmHWM in
// /proc/self/status), which, unlike its ru_maxrss, exec does not carry over from the image before;
// 0 when it cannot be read.
func ownPeakKiB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}
