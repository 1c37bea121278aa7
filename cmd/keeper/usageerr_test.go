package main

import (
	"strings"
	"testing"
)

// TestUsageErrorsSpeakTheUsersSpelling: an unknown command or report gets
// a did-you-mean, a flag is echoed as typed (--bogus, not -bogus), and
// `report KIND -h` is help (exit 0), not an error.
func TestUsageErrorsSpeakTheUsersSpelling(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // in stderr, or in stdout when code is exitOK
	}{
		{[]string{"plnn"}, exitUsage, `keeper: unknown command "plnn" (did you mean "plan"?)`},
		{[]string{"help", "histroy"}, exitUsage, `(did you mean "history"?)`},
		{[]string{"plan", "--bogus"}, exitUsage, `keeper plan: unknown flag "--bogus"`},
		{[]string{"plan", "--jsn"}, exitUsage, `unknown flag "--jsn" (did you mean --json?)`},
		{[]string{"plan", "--config"}, exitUsage, "flag needs an argument: --config"},
		{[]string{"run", "--once=maybe"}, exitUsage, `invalid boolean value "maybe" for --once`},
		{[]string{"report", "rewrds"}, exitUsage, `unknown report "rewrds" (did you mean "rewards"?)`},
		{[]string{"report", "vaults", "--bogus"}, exitUsage, `keeper report vaults: unknown flag "--bogus"`},
		{[]string{"report", "rewards", "-h"}, exitOK, "Usage: keeper report rewards"},
		{[]string{"report", "depositors", "--help"}, exitOK, "--vault"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, c.args...)
		got := errs
		if c.code == exitOK {
			got = out
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("keeper %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, out, errs, c.code, c.want)
		}
		if strings.Contains(errs, " -bogus") {
			t.Errorf("keeper %s: stderr respells the flag: %q", strings.Join(c.args, " "), errs)
		}
	}
}

// TestErrorsSayKeeper: an error that is not a file:line:col problem starts
// with "keeper:"; positioned problems stay at the start of their line.
func TestErrorsSayKeeper(t *testing.T) {
	for _, cmd := range []string{"plan", "history", "wallet", "run", "pubkey"} {
		code, _, errs := runCLI(t, cmd, "--config", t.TempDir()+"/missing.yaml")
		if code != exitUsage || !strings.HasPrefix(errs, "keeper: reading config: ") {
			t.Errorf("%s with a missing config: exit %d, stderr %q", cmd, code, errs)
		}
	}
	var b strings.Builder
	sayErr(&b, errorString("config.yaml:3:1: unknown field \"nope\""))
	if b.String() != "config.yaml:3:1: unknown field \"nope\"\n" {
		t.Errorf("a positioned problem printed as %q", b.String())
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
