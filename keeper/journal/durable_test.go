package journal

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// The synchronous levels a commit can run at: FULL fsyncs the log before
// the commit returns, NORMAL leaves it to the operating system until the
// next FULL commit.
const (
	syncNormal = 1
	syncFull   = 2
)

// durableSteps names the steps whose commit is fsync'd: the intent before
// the build, the signatures and tips before they are sent. Every other
// step commits lazily.
var durableSteps = map[string]bool{"begin": true, "start": true, "signed": true, "tip": true}

// stepChainExpired settles attempt n as expired because the chain proved
// every blockhash dead.
func stepChainExpired(n int) pathStep {
	return stepSettle(n, Outcome{State: StateExpired, Rule: RuleBlockhashExpired, Detail: "settled from the chain"})
}

// durablePaths are the paths TestDurablePoints checks: every crash
// scenario, one whose signed attempt the chain expired before a new
// attempt was refused, the action path's (Start, then its attempt to a
// landing), and one that expired before it was signed.
func durablePaths() []struct {
	name  string
	steps []pathStep
} {
	paths := []struct {
		name  string
		steps []pathStep
	}{
		{"chain expiry then refusal", []pathStep{
			stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1), stepSubmitted(1), stepChainExpired(1),
			stepAttempt(2, StateExpired), stepBuilt(2),
			stepSettle(2, Outcome{State: StateRefused, Rule: "program-allowlist", Detail: "program X not allowed"}),
		}},
		{"started, landed", []pathStep{
			stepStart, stepBuilt(1), stepSigned(1), stepSubmitted(1),
			stepSettle(1, Outcome{State: StateLanded, FeeLamports: 5000}),
		}},
		{"expiry before signing", []pathStep{
			stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepChainExpired(1),
		}},
	}
	for _, sc := range scenarios {
		paths = append(paths, struct {
			name  string
			steps []pathStep
		}{sc.name, sc.steps})
	}
	return paths
}

// TestDurablePoints checks the journal's durability contract on a file:
// it reads, inside every write transaction just before it commits, the
// synchronous level SQLite commits it at, and checks that exactly the
// intent and the signatures and tips are fsync'd. Then, for every prefix of
// every path, it replays only the steps up to the last fsync'd one (the
// least a power loss leaves on disk) and checks that recovery still has what
// it needs: every signature ever journaled, and for every outcome that was
// lost, its attempt still open (with its signatures, when it had any, so
// that recovery asks the chain; without, so that it is abandoned and
// rebuilt, which is safe because nothing of it was signed).
func TestDurablePoints(t *testing.T) {
	sqliteOnly(t)
	for _, p := range durablePaths() {
		t.Run(p.name, func(t *testing.T) {
			levels := commitLevels(t, p.steps)
			last := 0 // steps[:last] survive a power loss
			for k, s := range p.steps {
				want := syncNormal
				if durableSteps[s.name] {
					want = syncFull
				}
				if levels[k] != want {
					t.Errorf("step %d (%s) committed at synchronous=%d, want %d", k+1, s.name, levels[k], want)
				}
				if levels[k] == syncFull {
					last = k + 1
				}
				checkPowerLoss(t, p.steps[:k+1], p.steps[:last])
			}
		})
	}
}

// commitLevels runs steps on a new file journal and returns the
// synchronous level of each step's one commit.
func commitLevels(t *testing.T, steps []pathStep) []int {
	t.Helper()
	j := openDSN(t, tempDSN(t), newClock())
	levels := recordLevels(j)
	for k, s := range steps {
		before := len(*levels)
		if err := s.run(t.Context(), j, crashActionID); err != nil {
			t.Fatalf("step %d (%s): %v", k+1, s.name, err)
		}
		if len(*levels) != before+1 {
			t.Fatalf("step %d (%s) made %d commits, want 1", k+1, s.name, len(*levels)-before)
		}
	}
	return *levels
}

// recordLevels makes j note the synchronous level of each write
// transaction it commits (see commitLevel) and returns the list.
func recordLevels(j *Journal) *[]int {
	var levels []int
	j.beforeCommit = func(ctx context.Context, tx dbtx) error {
		level, err := commitLevel(ctx, tx)
		levels = append(levels, level)
		return err
	}
	return &levels
}

// commitLevel reads the synchronous level tx will commit at.
func commitLevel(ctx context.Context, tx dbtx) (int, error) {
	var level int
	err := tx.tx.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level)
	return level, err
}

// checkPowerLoss checks that the journal written by durable, the steps of
// written up to its last fsync'd one, holds what recovery needs after a
// power loss that struck once all of written had returned: every
// signature, and for each outcome it lost, that attempt still open with
// the signatures it had; a final state it lost leaves the action open to
// its policy.
func checkPowerLoss(t *testing.T, written, durable []pathStep) {
	t.Helper()
	all, kept := replay(t, written), replay(t, durable)
	at := written[len(written)-1].name
	if got, want := journaledSignatures(kept), journaledSignatures(all); !reflect.DeepEqual(got, want) {
		t.Errorf("after %q a power loss leaves signatures %v, want %v", at, got, want)
	}
	if all.State.Final() && kept.State != all.State && kept.State.Final() {
		t.Errorf("after %q a power loss leaves %s, want %s or a state that is not final", at, kept.State, all.State)
	}
	for _, a := range all.Attempts {
		if a.Outcome == "" || len(kept.Attempts) >= a.Number && kept.Attempts[a.Number-1].Outcome == a.Outcome {
			continue
		}
		if len(a.Signatures) == 0 && len(kept.Attempts) < a.Number {
			continue // the unsigned attempt is lost with its outcome: the policy decides afresh
		}
		open, ok := kept.OpenAttempt()
		if !ok || open.Number != a.Number || len(open.Signatures) != len(a.Signatures) {
			t.Errorf("after %q a power loss drops attempt %d's outcome %s but leaves no open attempt with its %d signatures",
				at, a.Number, a.Outcome, len(a.Signatures))
		}
	}
}

// replay runs steps on an in-memory journal and returns the action.
func replay(t *testing.T, steps []pathStep) Action {
	t.Helper()
	mem := openMemory(t, newClock())
	if err := runSteps(t.Context(), mem, crashActionID, steps); err != nil {
		t.Fatal(err)
	}
	act, err := mem.Get(t.Context(), crashActionID)
	if err != nil {
		t.Fatal(err)
	}
	return act
}

// journaledSignatures lists every signature and tip signature of act.
func journaledSignatures(act Action) []string {
	var out []string
	for _, a := range act.Attempts {
		for _, s := range a.Signatures {
			out = append(out, s.Signature)
		}
		for _, tip := range a.Tips {
			out = append(out, tip.Signature)
		}
	}
	return slices.Clip(out)
}
