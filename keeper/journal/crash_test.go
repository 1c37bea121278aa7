package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Environment of the crash child: the database DSN, the scenario index and
// how many of its steps to run before the child kills itself.
const (
	crashChildEnv    = "KEEPER_JOURNAL_CRASH_DSN"
	crashScenarioEnv = "KEEPER_JOURNAL_CRASH_SCENARIO"
	crashStepsEnv    = "KEEPER_JOURNAL_CRASH_STEPS"
	crashReached     = "crash child reached its kill point"
	crashActionID    = "act-crash"
)

// TestCrashRecovery writes every prefix of every scenario, stops the writer
// in three ways (Close; abandoning the open handle; killing the process
// with SIGKILL), reopens the file and checks that Pending and Get return
// exactly the journaled state with its signatures.
func TestCrashRecovery(t *testing.T) {
	sqliteOnly(t)
	stops := []struct {
		name string
		stop func(t *testing.T, dsn string, scenario, k int)
	}{
		{"close", stopByClose},
		{"abandon", stopByAbandon},
		{"kill", stopByKill},
	}
	for si, sc := range scenarios {
		for k := 1; k <= len(sc.steps); k++ {
			step := sc.steps[k-1]
			for _, st := range stops {
				t.Run(fmt.Sprintf("%s/%d-%s/%s", sc.name, k, step.name, st.name), func(t *testing.T) {
					dsn := tempDSN(t)
					st.stop(t, dsn, si, k)
					checkRecovered(t, dsn, si, k)
				})
			}
		}
	}
}

// stopByClose writes the first k steps and closes the journal.
func stopByClose(t *testing.T, dsn string, scenario, k int) {
	j, err := Open(t.Context(), dsn, Options{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := runSteps(t.Context(), j, crashActionID, scenarios[scenario].steps[:k]); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// stopByAbandon writes the first k steps and leaves the handle open while
// the database is reopened; it is closed only when the test ends.
func stopByAbandon(t *testing.T, dsn string, scenario, k int) {
	j := openDSN(t, dsn, newClock())
	if err := runSteps(t.Context(), j, crashActionID, scenarios[scenario].steps[:k]); err != nil {
		t.Fatal(err)
	}
}

// stopByKill runs the first k steps in a child process that kills itself
// with SIGKILL right after the last write returned.
func stopByKill(t *testing.T, dsn string, scenario, k int) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		crashChildEnv+"="+dsn, crashScenarioEnv+"="+strconv.Itoa(scenario), crashStepsEnv+"="+strconv.Itoa(k))
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("crash child: err %v, want death by signal; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), crashReached) {
		t.Fatalf("crash child died before its kill point; output:\n%s", out)
	}
}

// runCrashChild is the crash child's main: it writes the steps named in
// its environment and kills its own process without closing anything.
func runCrashChild() int {
	scenario, err1 := strconv.Atoi(os.Getenv(crashScenarioEnv))
	k, err2 := strconv.Atoi(os.Getenv(crashStepsEnv))
	if err := errors.Join(err1, err2); err != nil {
		fmt.Println("crash child:", err)
		return 3
	}
	ctx := context.Background()
	j, err := Open(ctx, os.Getenv(crashChildEnv), Options{Now: newClock().Now})
	if err != nil {
		fmt.Println("crash child:", err)
		return 3
	}
	if err := runSteps(ctx, j, crashActionID, scenarios[scenario].steps[:k]); err != nil {
		fmt.Println("crash child:", err)
		return 3
	}
	fmt.Println(crashReached)
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = self.Kill()
	}
	fmt.Println("crash child: still alive after kill:", err)
	return 3
}

// expectedAfter replays the first k steps of a scenario on an in-memory
// journal with a fresh clock and returns the resulting action.
func expectedAfter(t *testing.T, scenario, k int) Action {
	t.Helper()
	mem := openMemory(t, newClock())
	if err := runSteps(t.Context(), mem, crashActionID, scenarios[scenario].steps[:k]); err != nil {
		t.Fatal(err)
	}
	want, err := mem.Get(t.Context(), crashActionID)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// checkRecovered reopens dsn and checks the journaled state after k steps.
func checkRecovered(t *testing.T, dsn string, scenario, k int) {
	t.Helper()
	step := scenarios[scenario].steps[k-1]
	j := openDSN(t, dsn, newClock())
	got, err := j.Get(t.Context(), crashActionID)
	if err != nil {
		t.Fatalf("Get after reopen: %v", err)
	}
	if got.State != step.want {
		t.Fatalf("state after %q = %s, want %s", step.name, got.State, step.want)
	}
	checkSignatures(t, got)
	checkTips(t, got, scenarios[scenario].steps[:k])
	if open, ok := got.OpenAttempt(); (step.want == StateSigned || step.want == StateSubmitted) &&
		(!ok || len(open.Signatures) != 3) {
		t.Fatalf("after %q the open attempt holds %d signatures, want 3", step.name, len(open.Signatures))
	}
	if want := expectedAfter(t, scenario, k); !reflect.DeepEqual(got, want) {
		t.Fatalf("action after reopen differs from a replay:\n got %+v\nwant %+v", got, want)
	}
	pending, err := j.Pending(t.Context())
	if err != nil {
		t.Fatalf("Pending after reopen: %v", err)
	}
	wantPending := []Action{got}
	if step.want.Final() {
		wantPending = nil
	}
	if !reflect.DeepEqual(pending, wantPending) {
		t.Fatalf("Pending after %q:\n got %+v\nwant %+v", step.name, pending, wantPending)
	}
}

// checkSignatures checks that every attempt that got past signing holds
// exactly the signatures that were journaled for it.
func checkSignatures(t *testing.T, act Action) {
	t.Helper()
	if len(act.Attempts) != act.AttemptCount {
		t.Fatalf("%d attempts loaded, count says %d", len(act.Attempts), act.AttemptCount)
	}
	for _, att := range act.Attempts {
		var want []SignedTx
		if !att.SignedAt.IsZero() {
			want = signedFor(act.ID, att.Number, 3)
		}
		if !reflect.DeepEqual(att.Signatures, want) {
			t.Errorf("attempt %d signatures = %+v, want %+v", att.Number, att.Signatures, want)
		}
		if att.BuiltAt.IsZero() != (att.Transactions == nil) {
			t.Errorf("attempt %d: built at %v with transactions %v", att.Number, att.BuiltAt, att.Transactions)
		}
	}
}

// checkTips checks that the action holds exactly the tips the steps
// journaled, in order, each with its journaling time.
func checkTips(t *testing.T, act Action, steps []pathStep) {
	t.Helper()
	want := 0
	for _, s := range steps {
		if s.name == "tip" {
			want++
		}
	}
	got := 0
	for _, att := range act.Attempts {
		for i, tip := range att.Tips {
			if tip.Signature != tipFor(act.ID, att.Number, i, 0).Signature || tip.RecordedAt.IsZero() {
				t.Errorf("attempt %d tip %d = %+v, want %s with its journaling time", att.Number, i, tip,
					tipFor(act.ID, att.Number, i, 0).Signature)
			}
		}
		got += len(att.Tips)
	}
	if got != want {
		t.Errorf("%d tips journaled, want %d", got, want)
	}
}
